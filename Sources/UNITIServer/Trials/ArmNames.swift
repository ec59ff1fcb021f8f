import Foundation

/// How arms are named to one reader (issue 48, "Blinding"): to unblinded staff by their label and
/// id; to a member an owner made blind to allocation (the trial's analysts), and in any output
/// asked for blinded, by a code, `A`, `B`, …, fixed per study. The codes are dealt to the arms in
/// an order shuffled with the study's seed, so neither the design's order nor the letters say
/// which arm is which.
struct ArmNames: Sendable {
    let design: TrialDesign
    let blinded: Bool
    /// Arm id → code.
    let codes: [String: String]

    init(trial: StoredTrial, blinded: Bool) {
        design = trial.design
        self.blinded = blinded
        codes = Randomiser(design: trial.design, seed: trial.seed).codes
    }

    /// For a table cell or a CSV: the arm's id, or its code when blinded.
    func id(_ arm: String) -> String {
        blinded ? codes[arm] ?? "?" : arm
    }

    /// For a sentence: `Sound therapy (sound)`, or the code when blinded.
    func name(_ arm: String) -> String {
        guard !blinded else { return codes[arm] ?? "?" }
        return design.arms.first { $0.id == arm }.map { "\($0.label) (\($0.id))" } ?? arm
    }

    /// The arms in the order a reader sees them: the design's, or by code when blinded (the
    /// design's order would tell the arms apart).
    var ordered: [TrialDesign.Arm] {
        blinded ? design.arms.sorted { (codes[$0.id] ?? "") < (codes[$1.id] ?? "") } : design.arms
    }
}

extension Randomiser {
    /// Each arm's code for blinded readers: the letters A, B, … dealt in an order shuffled
    /// (Fisher–Yates) with numbers of the seed labelled `code|…`.
    var codes: [String: String] {
        var arms = design.arms.map(\.id)
        for index in stride(from: arms.count - 1, to: 0, by: -1) {
            arms.swapAt(index, uniform(index + 1, "code|\(index)"))
        }
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return Dictionary(uniqueKeysWithValues: arms.enumerated().map { ($1, String(letters[$0])) })
    }
}
