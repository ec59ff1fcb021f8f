import ArgumentParser
import Foundation
import UNITICore

/// The options `tn audiogram add` and `tn audiogram edit` share: every value of an audiogram
/// on one line. They are read as text and checked together by ``AudiogramValueParser``, so one
/// line names every bad value (the argument parser would stop at the first). Levels may be
/// negative (`-10`), so the values are taken as they come, even when they start with a dash.
struct AudiogramOptions: ParsableArguments {
    @Option(help: ArgumentHelp(L("tn.audiogram.option.date"), valueName: "YYYY-MM-DD"))
    var date: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(L("tn.audiogram.option.left"), valueName: "dB,dB,..."))
    var left: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(L("tn.audiogram.option.right"), valueName: "dB,dB,..."))
    var right: String?

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp(L("tn.audiogram.option.extra"), valueName: "HZ=LEFT/RIGHT"))
    var extra: [String] = []

    @Option(name: .customLong("pitch-left"), parsing: .unconditional,
            help: ArgumentHelp(L("tn.audiogram.option.pitchLeft"), valueName: "HZ"))
    var pitchLeft: String?

    @Option(name: .customLong("pitch-right"), parsing: .unconditional,
            help: ArgumentHelp(L("tn.audiogram.option.pitchRight"), valueName: "HZ"))
    var pitchRight: String?

    @Option(name: .customLong("loudness-left"), parsing: .unconditional,
            help: ArgumentHelp(L("tn.audiogram.option.loudnessLeft"), valueName: "DB"))
    var loudnessLeft: String?

    @Option(name: .customLong("loudness-right"), parsing: .unconditional,
            help: ArgumentHelp(L("tn.audiogram.option.loudnessRight"), valueName: "DB"))
    var loudnessRight: String?

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp(L("tn.audiogram.option.discomfort"), valueName: "HZ=LEFT/RIGHT"))
    var discomfort: [String] = []

    @Option(help: ArgumentHelp(L("tn.audiogram.option.note"), valueName: "TEXT"))
    var note: String?

    /// Whether the thresholds are on the line (then `add` asks nothing).
    var hasThresholds: Bool { left != nil || right != nil }

    /// Whether any value is given at all (an edit without one changes nothing).
    var isEmpty: Bool {
        date == nil && !hasThresholds && extra.isEmpty && discomfort.isEmpty && pitchLeft == nil && pitchRight == nil
            && loudnessLeft == nil && loudnessRight == nil && note == nil
    }

    /// Writes what the options say into `draft`, leaving the rest as it is; problems go to
    /// `parser`. When `adding`, a standard frequency in `--extra` is refused: it belongs in
    /// `--left`/`--right`; an edit may use `--extra` to change one frequency alone.
    func apply(to draft: inout AudiogramDraft, _ parser: inout AudiogramValueParser, adding: Bool) {
        if let date, let day = parser.date(date) { draft.date = day }
        for (ear, text) in [(Ear.left, left), (Ear.right, right)] {
            guard let text else { continue }
            for (hz, level) in parser.standardLevels(text, ear: ear) {
                draft.setThreshold(level, ear: ear, hz: hz)
            }
        }
        for values in parser.pairs(extra) {
            if adding, Audiogram.standardFrequencies.contains(values.hz) {
                parser.note(L("tn.audiogram.problem.standardExtra", ["hz": "\(values.hz)"]))
                continue
            }
            AudiogramDraft.replace(values, in: &draft.thresholds)
        }
        for values in parser.pairs(discomfort) {
            AudiogramDraft.replace(values, in: &draft.discomfort)
        }
        if let pitchLeft { draft.setPitch(parser.pitch(pitchLeft, ear: .left), ear: .left) }
        if let pitchRight { draft.setPitch(parser.pitch(pitchRight, ear: .right), ear: .right) }
        if let loudnessLeft { draft.setLoudness(parser.loudness(loudnessLeft, ear: .left), ear: .left) }
        if let loudnessRight { draft.setLoudness(parser.loudness(loudnessRight, ear: .right), ear: .right) }
        if let note { draft.note = note }
    }
}
