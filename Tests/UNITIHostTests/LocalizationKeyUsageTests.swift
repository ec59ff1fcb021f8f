import Foundation
@testable import ShadesOfNoise
import Testing
@testable import TrackYourTinnitus
@testable import TrackYourHearing
@testable import TinnitusNavigator
import UNITICore
import UNITILocalization
import UNITIProtocol

/// Every string key the sources look up exists in both tables. Keys are found where the code
/// asks for text (`L("…")`, `l("…")`, `localizer("…")`, and both branches of a `cond ? "…" : "…"`
/// inside such a call); a key built at run time (`"core.buildKind.\(kind)"`) must be listed in
/// ``runtimeKeys`` with every key it can become, so a new case cannot slip through unseen.
@Suite("Localization keys used in the sources", .timeLimit(.minutes(10)))
struct LocalizationKeyUsageTests {
    /// Each key pattern built at run time, with everything it can expand to.
    static let runtimeKeys: [String: [String]] = [
        "core.buildKind.\\(": ProgramKind.allCases.map { "core.buildKind.\($0.rawValue)" },
        "\\(owner).about.\\(name)": TrackYourTinnitus.AboutCommand.topics.map { "tyt.about.\($0)" }
            + TrackYourHearing.AboutCommand.topics.map { "tyh.about.\($0)" }
            + SonSettingsCommand.pages.topics.map { "son.about.\($0)" },
        "core.sensors.\\(rawValue).subject": SensorKind.allCases.map { "core.sensors.\($0.rawValue).subject" },
        "reminders.weekday.\\(": Weekday.allCases.map { "reminders.weekday.\($0.description)" },
        "host.study.joined.\\(": MembershipStatus.allCases.map { "host.study.joined.\($0.rawValue)" },
        "host.studies.membership.\\(": MembershipStatus.allCases.map { "host.studies.membership.\($0.rawValue)" },
        "host.study.visit.\\(": StudyVisit.State.allCases.map { "host.study.visit.\($0.rawValue)" },
        "host.studies.access.\\(": StudyAccess.allCases.map { "host.studies.access.\($0.rawValue)" },
        "host.sync.held.\\(": ["host.sync.held.waiting", "host.sync.held.rejected"],
        "host.gender.\\(": Gender.allCases.map { "host.gender.\($0.rawValue)" },
        "tyt.item.\\(": ResultItem.all.map { "tyt.item.\($0.label)" } + ["tyt.item.noiseDBFS", "tyt.item.noiseSPL"],
        "tyt.ringtone.describe.\\(": Ringtone.catalogue.map { "tyt.ringtone.describe.\($0.name)" },
        "\\(id).about": ModuleCatalogKeys.all(suffix: "about"),
        "\\(module.id).about": ModuleCatalogKeys.all(suffix: "about"),
        "\\(id).summary": ModuleCatalogKeys.all(suffix: "summary"),
        "tn.ear.\\(": Ear.allCases.map { "tn.ear.\($0.rawValue)" },
        "tn.event.type.\\(": HealthEvent.Kind.allCases.map { "tn.event.type.\($0.rawValue)" },
        "tn.therapy.type.\\(": Therapy.Kind.allCases.map { "tn.therapy.type.\($0.rawValue)" },
        "tn.calendar.month.\\(": (1...12).map { "tn.calendar.month.\($0)" },
        "tn.calendar.weekday.\\(": (1...7).map { "tn.calendar.weekday.\($0)" },
    ]

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Swift files of the client (the server does not use the string tables).
    static func clientSources() throws -> [URL] {
        var files: [URL] = []
        for folder in ["Sources/UNITICore", "Sources/UNITIHost", "Modules"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" { files.append(url) }
        }
        return files
    }

    /// The literal keys asked for in `source`, and the run-time patterns (literals with `\(`).
    /// A key looked up with a count (`L("key", count: n)`) is a plural key: it stands for its
    /// forms (``PluralForm``), `key.one` and `key.other`, which are listed instead.
    static func keys(in source: String) -> (literal: Set<String>, runtime: Set<String>) {
        var literal = Set<String>()
        var runtime = Set<String>()
        let call = #"\b(?:L|l|localizer|text\.localizer)\(\s*"((?:[^"\\]|\\.)*)"(\s*,\s*count:)?"#
        let ternary = #"\b(?:L|l|localizer)\([^()"]*\?\s*"([^"]+)"\s*:\s*"([^"]+)"(\s*,\s*count:)?"#
        for pattern in [call, ternary] {
            let regex = try! NSRegularExpression(pattern: pattern)
            for match in regex.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                let counted = match.range(at: match.numberOfRanges - 1).location != NSNotFound
                for group in 1..<(match.numberOfRanges - 1) {
                    guard let range = Range(match.range(at: group), in: source) else { continue }
                    let key = String(source[range])
                    // A lookup key has a dot and no spaces; anything else is text passed through.
                    guard key.contains("."), !key.contains(" ") else { continue }
                    let forms = counted ? PluralForm.allCases.map { key + "." + $0.rawValue } : [key]
                    if key.contains("\\(") { runtime.formUnion(forms) } else { literal.formUnion(forms) }
                }
            }
        }
        return (literal, runtime)
    }

    @Test("every counted text has each plural form in both tables, and no form is missing its siblings")
    func pluralFormsComplete() {
        let forms = PluralForm.allCases.map { "." + $0.rawValue }
        for code in ["en", "de"] {
            let table = StringTables.table(for: code)
            // A key ending in `.one` is a counted text (`.other` alone may be a category, such as
            // the event type `other`).
            let plural = Set(table.keys.filter { $0.hasSuffix(".one") }.map { String($0.dropLast(4)) })
            #expect(plural.count >= 40, "\(code): only \(plural.count) counted texts")
            for base in plural.sorted() {
                for form in forms {
                    #expect(StringTables.table(for: "en")[base + form] != nil, "\(base + form) missing in English")
                    #expect(StringTables.table(for: "de")[base + form] != nil, "\(base + form) missing in German")
                }
                #expect(table[base] == nil, "\(base) is also a plain key in \(code)")
            }
        }
    }

    @Test("a count picks its form: one for exactly 1, other for 0, 2 and 21, in English and German")
    func pluralFormsChosen() {
        let english = Localizer(language: .english), german = Localizer(language: .german)
        #expect(english("tn.report.count.audiograms", count: 1) == "1 audiogram")
        #expect(english("tn.report.count.audiograms", count: 0) == "0 audiograms")
        #expect(english("tn.report.count.audiograms", count: 21) == "21 audiograms")
        #expect(german("tyh.stats.lastTen", count: 1) == "Der letzte:")
        #expect(german("tyh.stats.lastTen", count: 3) == "Die letzten 3:")
        #expect(german("host.sync.count.sheets", count: 2) == "2 Antwortbögen")
    }

    @Test("every key looked up with a literal exists in the English and the German table")
    func literalKeysExist() throws {
        let english = StringTables.table(for: "en")
        let german = StringTables.table(for: "de")
        var missing: [String] = []
        var checked = 0
        for file in try Self.clientSources() {
            let source = try String(contentsOf: file, encoding: .utf8)
            for key in Self.keys(in: source).literal.sorted() {
                checked += 1
                if english[key] == nil { missing.append("\(key) (English, \(file.lastPathComponent))") }
                if german[key] == nil { missing.append("\(key) (German, \(file.lastPathComponent))") }
            }
        }
        #expect(checked > 300, "the scan found suspiciously few keys: \(checked)")
        #expect(missing == [])
    }

    @Test("every key built at run time is listed with its expansions, and each expansion exists in both tables")
    func runtimeKeysAreListed() throws {
        var unlisted: [String] = []
        for file in try Self.clientSources() {
            let source = try String(contentsOf: file, encoding: .utf8)
            for pattern in Self.keys(in: source).runtime where !Self.runtimeKeys.keys.contains(where: { pattern.contains($0) }) {
                unlisted.append("\(pattern) (\(file.lastPathComponent))")
            }
        }
        #expect(unlisted == [], "list these in runtimeKeys with every key they can become")
        for key in Self.runtimeKeys.values.flatMap({ $0 }) {
            #expect(StringTables.table(for: "en")[key] != nil, "\(key) missing in English")
            #expect(StringTables.table(for: "de")[key] != nil, "\(key) missing in German")
        }
    }

    @Test("the scan sees keys the way the sources write them")
    func scanFindsKeys() {
        let sample = #"""
        console.line(L("tyt.fill.due"))
        let t = l(ok ? "host.yes" : "host.no")
        let x = localizer("core.buildKind.\(kind.rawValue)")
        L("plain text passed through")
        """#
        let found = Self.keys(in: sample)
        #expect(found.literal == ["tyt.fill.due", "host.yes", "host.no"])
        #expect(found.runtime == [#"core.buildKind.\(kind.rawValue)"#])
        let counted = Self.keys(in: #"""
        L("tyh.stats.lastTen", count: n)
        l(on ? "tyh.rewards.gained" : "tyh.rewards.gainedOnTime", count: points)
        """#)
        #expect(counted.literal == ["tyh.stats.lastTen.one", "tyh.stats.lastTen.other", "tyh.rewards.gained.one",
                                    "tyh.rewards.gained.other", "tyh.rewards.gainedOnTime.one", "tyh.rewards.gainedOnTime.other"])
    }
}

/// `<id>.<suffix>` for every module of the one list.
enum ModuleCatalogKeys {
    static func all(suffix: String) -> [String] {
        ModuleCatalog.ids.map { "\($0).\(suffix)" }
    }
}
