import Foundation
import UNITICore

/// Reads the values a person types for an audiogram (a hearing level, a list of seven, a
/// `3000=20/25` pair, a pitch, a loudness) and collects every problem instead of stopping at
/// the first, so a one-line `tn audiogram add` names all its bad values at once and nothing is
/// saved until they are fixed (house rule: bad input never loses data and gets one line).
///
/// Empty text and `-` mean "not measured". Each reading returns nil for both "not measured" and
/// "bad"; ``problems`` tells them apart.
struct AudiogramValueParser {
    /// Every problem found so far, each a short phrase; ``error`` joins them into one line.
    private(set) var problems: [String] = []

    /// The one-line error naming every problem, or nil when there was none.
    var error: UNITIError? {
        problems.isEmpty ? nil : UNITIError(L("tn.audiogram.error.notSaved", ["problems": problems.joined(separator: "; ")]))
    }

    mutating func note(_ problem: String) {
        problems.append(problem)
    }

    /// True for text that means "not measured".
    static func isBlank(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "-"
    }

    /// A hearing level in dB HL (−10…120, steps of 5) of `ear` at `hz`.
    mutating func level(_ text: String, hz: Int, ear: Ear) -> Int? {
        guard !Self.isBlank(text) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(trimmed), Audiogram.levelRange.contains(value), value % Audiogram.levelStep == 0 {
            return value
        }
        note(L("tn.audiogram.problem.level", ["ear": ear.title, "hz": "\(hz)", "text": trimmed]))
        return nil
    }

    /// The seven standard thresholds of one ear, comma-separated in the order of
    /// ``Audiogram/standardFrequencies``; an empty place is a frequency not measured.
    mutating func standardLevels(_ text: String, ear: Ear) -> [Int: Int?] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == Audiogram.standardFrequencies.count else {
            note(L("tn.audiogram.problem.count", count: parts.count, ["ear": ear.title]))
            return [:]
        }
        var levels: [Int: Int?] = [:]
        for (hz, part) in zip(Audiogram.standardFrequencies, parts) {
            levels[hz] = level(part, hz: hz, ear: ear)
        }
        return levels
    }

    /// A frequency in Hz of the range an audiogram may have.
    mutating func frequency(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let hz = Int(trimmed), Audiogram.frequencyRange.contains(hz) { return hz }
        note(L("tn.audiogram.problem.frequency", ["text": trimmed]))
        return nil
    }

    /// `HZ=LEFT/RIGHT` (either side may be empty): a custom frequency's thresholds or a
    /// discomfort threshold. Nil when the text is not of that form or its frequency is bad.
    mutating func pair(_ text: String) -> EarValues? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let halves = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else {
            note(L("tn.audiogram.problem.pair", ["text": trimmed]))
            return nil
        }
        let ears = halves[1].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard ears.count == 2 else {
            note(L("tn.audiogram.problem.pair", ["text": trimmed]))
            return nil
        }
        guard let hz = frequency(String(halves[0])) else { return nil }
        return EarValues(hz: hz, left: level(ears[0], hz: hz, ear: .left), right: level(ears[1], hz: hz, ear: .right))
    }

    /// Pairs for several frequencies, each frequency once.
    mutating func pairs(_ texts: [String]) -> [EarValues] {
        var result: [EarValues] = []
        for text in texts {
            guard let values = pair(text) else { continue }
            if result.contains(where: { $0.hz == values.hz }) {
                note(L("tn.audiogram.problem.twice", ["hz": "\(values.hz)"]))
                continue
            }
            result.append(values)
        }
        return result
    }

    /// The tinnitus pitch of `ear` in Hz.
    mutating func pitch(_ text: String, ear: Ear) -> Int? {
        guard !Self.isBlank(text) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let hz = Int(trimmed), Audiogram.pitchRange.contains(hz) { return hz }
        note(L("tn.audiogram.problem.pitch", ["ear": ear.title, "text": trimmed]))
        return nil
    }

    /// The tinnitus loudness of `ear` in dB.
    mutating func loudness(_ text: String, ear: Ear) -> Int? {
        guard !Self.isBlank(text) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(trimmed), Audiogram.loudnessRange.contains(value) { return value }
        note(L("tn.audiogram.problem.loudness", ["ear": ear.title, "text": trimmed]))
        return nil
    }

    /// A day `YYYY-MM-DD`.
    mutating func date(_ text: String) -> LocalDate? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = try? LocalDate(parsing: trimmed) { return date }
        note(L("tn.audiogram.problem.date", ["text": trimmed]))
        return nil
    }
}
