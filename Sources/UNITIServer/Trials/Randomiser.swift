import Crypto
import Foundation

/// A trial's allocation sequence (issue 48): every allocation is a function of the study's secret
/// seed, the design and the allocations made before it, so that nobody without the seed can know
/// the next arm, and a statistician given the seed can make every allocation again
/// (`uniti-server randomisation verify`).
///
/// The random numbers are HMAC-SHA256 of a label under the seed (swift-crypto): a label names
/// what a number decides (`block|distress=high|site=ulm|3|size`, `min|41|prefer`), so each number
/// is fixed by the seed and its place and by nothing else: the order in which strata fill up, or
/// a second server process, changes no number.
///
/// - **Permuted blocks, random sizes**: each stratum has its own run of blocks; block `k` holds
///   `ratio × m` places of each arm, `m` drawn from the design's multiples, in an order shuffled
///   (Fisher–Yates) with numbers of that block. The `n`th participant of a stratum gets the `n`th
///   place. At any moment an arm's count in a stratum is off its share by less than one block.
/// - **Minimisation** (Pocock and Simon, 1975): for each arm, the imbalance the allocation would
///   leave, added over the factors (per factor, the range of the arms' counts at the participant's
///   level divided by their ratios); the arm of least imbalance with the design's probability
///   (ties among several broken at random), another arm at random otherwise; when every arm would
///   leave the same imbalance, an arm at random weighted by the ratios.
struct Randomiser: Sendable {
    let design: TrialDesign
    private let key: SymmetricKey

    /// 32 random bytes for a new trial, from the system's generator.
    static func newSeed() -> Data {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    init(design: TrialDesign, seed: Data) {
        self.design = design
        self.key = SymmetricKey(data: seed)
    }

    /// One allocation as it is recorded.
    struct Allocation: Sendable, Equatable, Codable {
        /// 1 for the study's first, then 2, … (the order they were made in).
        var sequence: Int
        /// The participant's levels, one per factor in the design's order.
        var levels: [String]
        /// ``TrialDesign/stratum(_:)`` of the levels.
        var stratum: String
        /// 1 for the stratum's first, then 2, …
        var place: Int
        var arm: String
    }

    /// What the allocations so far add up to; ``Randomiser/allocate(_:in:)`` reads it and
    /// ``State/record(_:)`` adds to it. Built by recording the study's allocations in order.
    struct State: Sendable {
        fileprivate(set) var count = 0
        /// Allocations per stratum.
        fileprivate(set) var placed: [String: Int] = [:]
        /// Per factor (design order) and level, each arm's count (design order).
        fileprivate(set) var margins: [[String: [Int]]]
        /// Per stratum, its current block: its number, the place it starts after, its arms.
        fileprivate var blocks: [String: (number: Int, start: Int, arms: [Int])] = [:]

        init(design: TrialDesign) {
            margins = Array(repeating: [:], count: design.factors.count)
        }
    }

    /// Adds an allocation to `state`; the allocations must be recorded in their order.
    func record(_ allocation: Allocation, in state: inout State) throws {
        guard let arm = design.arms.firstIndex(where: { $0.id == allocation.arm }) else {
            throw TrialError("allocation \(allocation.sequence) names arm \(allocation.arm), which the design does not have")
        }
        state.count += 1
        state.placed[allocation.stratum, default: 0] += 1
        for (factor, level) in allocation.levels.enumerated() where factor < state.margins.count {
            state.margins[factor][level, default: Array(repeating: 0, count: design.arms.count)][arm] += 1
        }
    }

    /// The next allocation for a participant of these levels (``TrialDesign/levels(_:)``), after
    /// the allocations `state` holds.
    func allocate(_ levels: [String], in state: inout State) -> Allocation {
        let stratum = design.stratum(levels)
        let sequence = state.count + 1
        let place = state.placed[stratum, default: 0] + 1
        let arm: Int = switch design.method {
        case .blocks: blockArm(stratum: stratum, place: place, cache: &state.blocks)
        case .minimisation: minimisedArm(levels, sequence: sequence, margins: state.margins)
        }
        return Allocation(sequence: sequence, levels: levels, stratum: stratum, place: place, arm: design.arms[arm].id)
    }

    /// Makes every allocation again, in order, from the seed; returns those that differ from
    /// what was recorded (sequence, recorded arm, arm made now), empty when all agree.
    func verify(_ allocations: [Allocation]) throws -> [(sequence: Int, recorded: String, computed: String)] {
        var state = State(design: design)
        var differences: [(Int, String, String)] = []
        for (index, recorded) in allocations.enumerated() {
            guard recorded.sequence == index + 1 else {
                throw TrialError("allocation \(index + 1) is missing: the record goes from \(index) to \(recorded.sequence)")
            }
            let again = allocate(recorded.levels, in: &state)
            if again != recorded { differences.append((recorded.sequence, recorded.arm, again.arm)) }
            try record(recorded, in: &state)
        }
        return differences
    }

    // MARK: Permuted blocks

    private func blockArm(stratum: String, place: Int, cache: inout [String: (number: Int, start: Int, arms: [Int])]) -> Int {
        var block = cache[stratum] ?? (0, 0, self.block(stratum: stratum, number: 0))
        while place > block.start + block.arms.count {
            block = (block.number + 1, block.start + block.arms.count, self.block(stratum: stratum, number: block.number + 1))
        }
        cache[stratum] = block
        return block.arms[place - block.start - 1]
    }

    /// Block `number` of a stratum: each arm `ratio × m` times, shuffled.
    func block(stratum: String, number: Int) -> [Int] {
        let multiples = design.multiples
        let multiple = multiples[uniform(multiples.count, "block|\(stratum)|\(number)|size")]
        var arms = design.arms.indices.flatMap { Array(repeating: $0, count: design.arms[$0].ratio * multiple) }
        for index in stride(from: arms.count - 1, to: 0, by: -1) {
            arms.swapAt(index, uniform(index + 1, "block|\(stratum)|\(number)|swap|\(index)"))
        }
        return arms
    }

    // MARK: Minimisation

    /// The imbalance per arm that allocating there would leave, added over the factors.
    func imbalances(_ levels: [String], margins: [[String: [Int]]]) -> [Double] {
        let arms = design.arms
        return arms.indices.map { candidate in
            zip(margins, levels).reduce(0.0) { total, factor in
                var counts = factor.0[factor.1] ?? Array(repeating: 0, count: arms.count)
                counts[candidate] += 1
                let shares = counts.indices.map { Double(counts[$0]) / Double(arms[$0].ratio) }
                return total + (shares.max()! - shares.min()!)
            }
        }
    }

    private func minimisedArm(_ levels: [String], sequence: Int, margins: [[String: [Int]]]) -> Int {
        let imbalance = imbalances(levels, margins: margins)
        let least = imbalance.min()!
        let preferred = imbalance.indices.filter { imbalance[$0] - least < 1e-9 }
        if preferred.count == design.arms.count {
            // No arm is better: by the ratios.
            var place = uniform(design.round, "min|\(sequence)|even")
            for (index, arm) in design.arms.enumerated() {
                if place < arm.ratio { return index }
                place -= arm.ratio
            }
        }
        if unit("min|\(sequence)|prefer") < design.preference {
            return preferred[uniform(preferred.count, "min|\(sequence)|pick")]
        }
        let others = imbalance.indices.filter { !preferred.contains($0) }
        return others[uniform(others.count, "min|\(sequence)|other")]
    }

    // MARK: Numbers from the seed

    /// A whole number in `0..<bound`, without bias: HMAC values beyond the last whole multiple of
    /// `bound` are drawn again (with the attempt in the label).
    func uniform(_ bound: Int, _ label: String) -> Int {
        precondition(bound > 0)
        let range = UInt64(bound)
        let limit = UInt64.max - (UInt64.max % range + 1) % range
        var attempt = 0
        while true {
            let value = number("\(label)#\(attempt)")
            if value <= limit { return Int(value % range) }
            attempt += 1
        }
    }

    /// A number in [0, 1) with 53 random bits.
    func unit(_ label: String) -> Double {
        Double(number(label) >> 11) / Double(1 << 53)
    }

    private func number(_ label: String) -> UInt64 {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(label.utf8), using: key)
        return mac.withUnsafeBytes { bytes in bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }
    }
}
