import ArgumentParser
import Testing
import UNITICore

@Suite("On and off", .timeLimit(.minutes(10)))
struct OnOffTests {
    /// A command taking a switch, as `tyt settings noise on|off` does.
    struct Switch: ParsableCommand {
        @Argument var value: OnOff
    }

    func inGerman<T>(_ body: () throws -> T) rethrows -> T {
        try CurrentLanguage.$scope.withValue(LockedValue(.german), operation: body)
    }

    @Test("in German a switch takes on, AN and ein, and the English words as well; case does not matter")
    func germanWords() throws {
        try inGerman { () throws in
            #expect(try Switch.parse(["on"]).value == .on)
            #expect(try Switch.parse(["AN"]).value == .on)
            #expect(try Switch.parse(["ein"]).value == .on)
            #expect(try Switch.parse(["Aus"]).value == .off)
            #expect(try Switch.parse(["off"]).value == .off)
        }
    }

    @Test("in English the other languages' words count too, so a script written in one language works in all; a refusal names English's")
    func englishWords() throws {
        try CurrentLanguage.$scope.withValue(LockedValue(.english)) { () throws in
            #expect(try Switch.parse(["ON"]).value == .on)
            #expect(try Switch.parse(["an"]).value == .on)
            #expect(try Switch.parse(["aus"]).value == .off)
            #expect(try Switch.parse(["aan"]).value == .on)
            #expect(try Switch.parse(["apagado"]).value == .off)
            #expect(try Switch.parse(["ενεργό"]).value == .on)
            #expect(throws: (any Error).self) { try Switch.parse(["yes"]) }
            #expect(OnOff.allValueStrings == ["on", "off"])
        }
    }

    @Test("an unknown word is refused with one line naming it and every accepted word")
    func refusesUnknownWords() {
        inGerman {
            #expect(OnOff.allValueStrings == ["an", "ein", "on", "aus", "off"])
            #expect(throws: UNITIError("'maybe' ist weder an noch aus; möglich sind an, ein, on, aus, off")) {
                try OnOff(parsing: "maybe")
            }
            // Through argument-parser, too, the accepted words are the tables'.
            do {
                _ = try Switch.parse(["maybe"])
                Issue.record("'maybe' was accepted")
            } catch {
                let message = Switch.message(for: error)
                #expect(!message.contains("\n"))
                #expect(["'on'", "'an'", "'ein'", "'off'", "'aus'"].allSatisfy(message.contains))
            }
        }
    }
}
