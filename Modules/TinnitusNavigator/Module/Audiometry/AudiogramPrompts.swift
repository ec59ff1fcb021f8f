import Foundation
import UNITICore

/// `tn audiogram add` without values on the line: asks for the date, each ear's threshold at
/// the seven standard frequencies (right ear first, as audiometry tests it), then optional
/// custom frequencies, the tinnitus pitch and loudness per ear, thresholds of discomfort and a
/// note. An empty answer means "not measured" (or "none"); a bad answer is named in one line
/// and asked again, so nothing typed before it is lost.
struct AudiogramPrompts {
    let context: ModuleContext

    func draft() throws -> AudiogramDraft {
        let today = LocalDate(context.clock.now, in: context.clock.timeZone)
        let date = try ask(L("tn.audiogram.ask.date", ["today": today.description])) { text, parser in
            AudiogramValueParser.isBlank(text) ? today : parser.date(text)
        } ?? today
        var draft = AudiogramDraft(date: date)
        context.console.line(L("tn.audiogram.ask.intro"))
        for ear in [Ear.right, .left] {
            for hz in Audiogram.standardFrequencies {
                draft.setThreshold(try level(ear: ear, hz: hz), ear: ear, hz: hz)
            }
        }
        // Every audiogram needs each standard frequency for at least one ear.
        while let hz = draft.missingStandardFrequencies.first {
            context.console.error(L("tn.audiogram.problem.missing", ["hz": "\(hz)"]))
            for ear in [Ear.right, .left] {
                draft.setThreshold(try level(ear: ear, hz: hz), ear: ear, hz: hz)
            }
        }
        try askFrequencies(L("tn.audiogram.ask.extraFrequency"), excluding: Audiogram.standardFrequencies) { hz in
            for ear in [Ear.right, .left] {
                draft.setThreshold(try level(ear: ear, hz: hz), ear: ear, hz: hz)
            }
        }
        for ear in [Ear.right, .left] {
            let pitch = try ask(L("tn.audiogram.ask.pitch", ["ear": ear.title])) { text, parser in parser.pitch(text, ear: ear) }
            draft.setPitch(pitch, ear: ear)
            if pitch != nil {
                draft.setLoudness(try ask(L("tn.audiogram.ask.loudness", ["ear": ear.title])) { text, parser in
                    parser.loudness(text, ear: ear)
                }, ear: ear)
            }
        }
        try askFrequencies(L("tn.audiogram.ask.discomfortFrequency"), excluding: []) { hz in
            var values = EarValues(hz: hz, left: nil, right: nil)
            values.right = try level(ear: .right, hz: hz, discomfort: true)
            values.left = try level(ear: .left, hz: hz, discomfort: true)
            AudiogramDraft.replace(values, in: &draft.discomfort)
        }
        let note = try context.input.requireLine(prompt: L("tn.audiogram.ask.note") + " ")
        draft.note = AudiogramValueParser.isBlank(note) ? nil : note
        return draft
    }

    /// One ear's threshold (or threshold of discomfort) at one frequency.
    private func level(ear: Ear, hz: Int, discomfort: Bool = false) throws -> Int? {
        let key = discomfort ? "tn.audiogram.ask.discomfort" : "tn.audiogram.ask.level"
        return try ask(L(key, ["ear": ear.title, "hz": "\(hz)"])) { text, parser in parser.level(text, hz: hz, ear: ear) }
    }

    /// Frequencies one after another until an empty answer; each once, none of `excluding`.
    private func askFrequencies(_ prompt: String, excluding: [Int], each: (Int) throws -> Void) throws {
        var asked = Set(excluding)
        while true {
            let hz = try ask(prompt) { text, parser -> Int? in
                guard !AudiogramValueParser.isBlank(text), let hz = parser.frequency(text) else { return nil }
                if asked.contains(hz) { parser.note(L("tn.audiogram.problem.twice", ["hz": "\(hz)"])) }
                return hz
            }
            guard let hz else { return }
            asked.insert(hz)
            try each(hz)
        }
    }

    /// Asks until the answer reads without a problem; the value read, nil for an empty answer.
    /// The end of input cancels the entry (``PromptCancelled``): nothing is saved.
    private func ask<Value>(_ prompt: String, read: (String, inout AudiogramValueParser) -> Value?) throws -> Value? {
        while true {
            let text = try context.input.requireLine(prompt: prompt + " ")
            var parser = AudiogramValueParser()
            let value = read(text, &parser)
            guard parser.problems.isEmpty else {
                context.console.error(parser.problems.joined(separator: "; "))
                continue
            }
            return value
        }
    }
}
