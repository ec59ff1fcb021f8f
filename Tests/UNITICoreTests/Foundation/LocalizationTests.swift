import Foundation
import Testing
import UNITILocalization
import UNITIText
@testable import UNITICore

@Suite("Localization", .timeLimit(.minutes(10)))
struct LocalizationTests {
    @Test("English and German tables have exactly the same keys")
    func tablesHaveSameKeys() {
        let english = Set(StringTables.table(for: "en").keys)
        let german = Set(StringTables.table(for: "de").keys)
        #expect(!english.isEmpty)
        #expect(english.subtracting(german).sorted() == [], "missing in German")
        #expect(german.subtracting(english).sorted() == [], "missing in English")
    }

    /// `Localization/same-as-english.json`: per language, the keys whose text may read as the
    /// English one (names, "Team", month names that are the same).
    static let sameAsEnglish: [String: Set<String>] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Localization/same-as-english.json")
        guard let data = try? Data(contentsOf: file), let lists = try? JSONDecoder().decode([String: [String]].self, from: data) else { return [:] }
        return lists.mapValues(Set.init)
    }()

    /// The named and printf placeholders of a text, sorted (`{count}`, `%@`).
    static func placeholders(_ text: String) -> [String] {
        text.matches(of: /\{[A-Za-z_][A-Za-z0-9_]*\}|%(?:\d+\$)?[@dsf%]/).map { String($0.output) }.sorted()
    }

    @Test("every language's tables are whole: English's keys, each with the English text's placeholders, none still the English text unless allowed (Scripts/strings lists what to do)")
    func everyLanguageIsWhole() {
        let english = StringTables.table(for: "en")
        #expect(StringTables.languages.contains("de") && StringTables.languages.contains("en"))
        for language in StringTables.languages where language != "en" {
            let table = StringTables.table(for: language)
            #expect(Set(english.keys).subtracting(table.keys).sorted() == [], "missing in \(language)")
            #expect(Set(table.keys).subtracting(english.keys).sorted() == [], "in \(language) but not in English")
            let allowed = Self.sameAsEnglish[language] ?? []
            for (key, text) in table {
                guard let source = english[key] else { continue }
                #expect(Self.placeholders(text) == Self.placeholders(source), "\(language) \(key): \(text)")
                // A text with a word of three letters besides its placeholders is to be translated.
                let words = source.replacing(/\{[A-Za-z_][A-Za-z0-9_]*\}/, with: "").contains(/\p{L}{3,}/)
                #expect(text != source || !words || allowed.contains(key), "\(language) \(key) is still the English text: \(text)")
            }
        }
    }

    @Test("the trial's languages: names and codes, decimal commas, one/other, yes and no and weekdays typed in any of them, Greek capitals without accents and one column per letter")
    func trialLanguages() throws {
        #expect(Language(code: "el_GR.UTF-8") == .greek && Language(code: "Español") == .spanish && Language(code: "nederlands") == .dutch
                && Language(code: "ελληνικά") == .greek && Language(code: "fr") == nil)
        #expect(Language.allCases.map(\.rawValue) == ["en", "de", "es", "el", "nl"])
        #expect([Language.spanish, .greek, .dutch].allSatisfy { $0.number(2.5) == "2,5" && $0.pluralForm(1) == .one && $0.pluralForm(0) == .other })
        #expect(Language.english.number(2.5) == "2.5")
        for yes in ["sí", "si", "S", "ναι", "Ναι", "ν", "ja", "J", "y"] { #expect(Confirmation.isYes(yes), "\(yes)") }
        for no in ["no", "όχι", "ο", "nee", "nein", "n", ""] { #expect(!Confirmation.isYes(no), "\(no)") }
        #expect(["όχι", "οχι", "nee", "no"].allSatisfy(Confirmation.isNo))
        #expect(AnswerParser.read("ναι", for: .yesNo) == .value(.number(0)) && AnswerParser.read("όχι", for: .yesNo) == .value(.number(1)))
        #expect(try Weekday(parsing: "miércoles") == .wednesday && Weekday(parsing: "MIERCOLES") == .wednesday)
        #expect(try Weekday(parsing: "Πέμπτη") == .thursday && Weekday(parsing: "πεμπτη") == .thursday && Weekday(parsing: "vrijdag") == .friday)
        #expect(try Weekday(parsing: "zo") == .sunday && Weekday(parsing: "sáb") == .saturday && Weekday(parsing: "Δευτέρα") == .monday)
        #expect(throws: UNITIError.self) { try Weekday(parsing: "ma") }
        #expect(Language.greek.uppercased("Γενικό ιστορικό") == "ΓΕΝΙΚΟ ΙΣΤΟΡΙΚΟ")
        #expect(Language.greek.uppercased("προϊόν") == "ΠΡΟΪΟΝ", "the diaeresis stays")
        #expect(Language.german.uppercased("Straße") == "STRASSE" && Language.spanish.uppercased("año") == "AÑO")
        #expect("Ακοόγραμμα".displayWidth == 10 && "α\u{301}".displayWidth == 1 && "ά".displayWidth == 1)
        // Lists sorted by name follow the language's collation, not the code points.
        let words = ["oreja", "ñandú", "nube", "Zumbido", "ácido"]
        #expect(words.sorted(by: Language.spanish.ordered) == ["ácido", "nube", "ñandú", "oreja", "Zumbido"])
        #expect(["Ωτο", "άλφα", "Βήτα"].sorted(by: Language.greek.ordered) == ["άλφα", "Βήτα", "Ωτο"])
        #expect(["Übelkeit", "Ohr", "Apfel", "Tag 10", "Tag 2"].sorted(by: Language.german.ordered) == ["Apfel", "Ohr", "Tag 2", "Tag 10", "Übelkeit"])
        // A table of Greek words lines up: the second column starts at the same column on every line.
        let table = TextTable(header: ["Όνομα", "Τιμή"], rows: [["Ακοόγραμμα", "ναι"], ["Ώρα", "όχι"]], cutsToTerminalWidth: false).lines()
        let starts = zip(table, ["Τιμή", "ναι", "όχι"]).compactMap { line, cell in line.range(of: cell).map { String(line[..<$0.lowerBound]).displayWidth } }
        #expect(starts.count == 3 && Set(starts).count == 1, "\(table)")
    }

    @Test("every German text differs from a mere copy of the key")
    func noKeyIsItsOwnText() {
        for (key, value) in StringTables.table(for: "de") {
            #expect(value != key)
            #expect(!value.isEmpty, "\(key) is empty")
        }
    }

    @Test("named placeholders are filled and a missing key shows itself")
    func placeholdersAndMissingKeys() {
        let english = Localizer(language: .english)
        #expect(english("host.error.unknownCommand", ["command": "frobnicate"]) == "unknown command 'frobnicate'.")
        #expect(english("no.such.key") == "no.such.key")
        let german = Localizer(language: .german)
        #expect(german("host.didYouMean", ["command": "modules"]) == "Meinten Sie 'modules'?")
    }

    @Test("the language comes from --lang, else the setting, else LANG, else English")
    func languageResolutionOrder() {
        #expect(LanguageSetting.resolve(option: .german, stored: "en", environment: ["LANG": "en_US.UTF-8"]) == .german)
        #expect(LanguageSetting.resolve(option: nil, stored: "de", environment: ["LANG": "en_US.UTF-8"]) == .german)
        #expect(LanguageSetting.resolve(option: nil, stored: nil, environment: ["LANG": "de_AT.UTF-8"]) == .german)
        #expect(LanguageSetting.resolve(option: nil, stored: nil, environment: ["LANG": "fr_FR.UTF-8"]) == .english)
        #expect(LanguageSetting.resolve(option: nil, stored: "xx", environment: [:]) == .english)
        #expect(Language.fromEnvironment(["LC_ALL": "de_DE.UTF-8", "LANG": "en_US"]) == .german)
    }
}

@Suite("Placeholders", .timeLimit(.minutes(10)))
struct PlaceholderTests {
    @Test("each named placeholder is filled once; unknown braces stay; a value is not searched for placeholders")
    func fill() {
        #expect(Localizer.fill("{a} and {b}, {a}", with: ["a": "1", "b": "2"]) == "1 and 2, 1")
        #expect(Localizer.fill("{unknown} {a", with: ["a": "1"]) == "{unknown} {a")
        #expect(Localizer.fill("x{a}y", with: ["a": "{b}", "b": "no"]) == "x{b}y")
        #expect(Localizer.fill("Grüße, {name}!", with: ["name": "Jörg"]) == "Grüße, Jörg!")
    }
}
