import Foundation
import Testing
import UNITILocalization
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
