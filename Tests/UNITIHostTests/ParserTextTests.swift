import Testing
import UNITICore
@testable import UNITIHost

/// The help of every command, and the parser's errors, in the person's language: argument-
/// parser's own phrases (section titles, the `--help` line, `(values: …)`, the subcommand hint,
/// parse errors) are worded from the string tables; the hint names the shell's way to ask.
@Suite("argument-parser's words in the person's language", .isolatedLanguage, .timeLimit(.minutes(10)))
struct ParserTextTests {
    /// argument-parser's English phrases; none may be left in a German page or error.
    static let englishPhrases = ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "SUBCOMMANDS:", "Show help information.",
                                 "(values:", "(default:", "for detailed help", "<subcommand>", "Missing", "Unknown option",
                                 "is invalid for", "Unexpected argument", "Please provide"]

    static func run(_ lines: [String], language: Language) throws -> (out: String, err: String) {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        CurrentLanguage.value = language
        for line in lines { _ = fixture.shell.execute(line: line) }
        return (fixture.output.out, fixture.output.err)
    }

    @Test("in German, help pages of the shell's commands carry no English phrase of the parser")
    func germanHelp() throws {
        let (out, _) = try Self.run(["help study", "help profile", "help sensors", "study --help", "sensors allow --help"],
                                    language: .german)
        for phrase in Self.englishPhrases { #expect(!out.contains(phrase), "\(phrase) in \(out)") }
        for phrase in ["ÜBERSICHT:", "AUFRUF:", "ARGUMENTE:", "OPTIONEN:", "UNTERBEFEHLE:", "Diese Hilfe zeigen.",
                       "(Werte: mikrofon, standort)", "'help study UNTERBEFEHL' zeigt einen davon ausführlich."] {
            #expect(out.contains(phrase), "\(phrase) missing in \(out)")
        }
    }

    @Test("in German, the parser's errors are German and list the German words a value takes")
    func germanErrors() throws {
        let (_, err) = try Self.run(["study join", "sensors allow bogus", "status --bogus", "modules extra"], language: .german)
        for phrase in Self.englishPhrases { #expect(!err.contains(phrase), "\(phrase) in \(err)") }
        #expect(err.contains("es fehlt das Argument '<id>'"), "\(err)")
        #expect(err.contains("'bogus' ist kein Wert für '<sensor>'; möglich sind 'mikrofon' und 'standort'"), "\(err)")
        #expect(err.contains("unbekannte Option '--bogus'"), "\(err)")
        #expect(err.contains("unerwartetes Argument 'extra'"), "\(err)")
    }

    @Test("in English, help names the shell's way to a subcommand's help, not the parser's")
    func englishHint() throws {
        let (out, err) = try Self.run(["help study", "study join"], language: .english)
        #expect(out.contains("Type 'help study SUBCOMMAND' to see one of them in detail."), "\(out)")
        #expect(!out.contains("See 'study help"))
        #expect(out.contains("OVERVIEW:") && out.contains("Show this help."))
        #expect(err.contains("missing argument '<id>'"), "\(err)")
    }
}
