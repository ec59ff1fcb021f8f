import Testing
@testable import UNITIHost

@Suite("Program options", .isolatedLanguage, .timeLimit(.minutes(10)))
struct ProgramOptionsTests {
    @Test("options take their value as the next word or after '='")
    func values() throws {
        let options = try ProgramOptions.parse(["--data-dir", "/tmp/x", "--lang=de", "-c", "tyt fill", "--server", "http://h:1", "--json"])
        #expect(options == ProgramOptions(command: "tyt fill", dataDirectory: "/tmp/x", language: "de", server: "http://h:1", json: true))
        #expect(try ProgramOptions.parse(["--script=run.txt"]).script == "run.txt")
        #expect(try ProgramOptions.parse(["--version"]).version)
        #expect(try ProgramOptions.parse(["-h"]).help)
        #expect(try ProgramOptions.parse([]) == ProgramOptions())
    }

    @Test("unknown options, missing values, stray words and -c with --script are refused in one line")
    func errors() {
        #expect(throws: ProgramOptions.UsageError(message: "unknown option '--frobnicate'; see --help.")) {
            try ProgramOptions.parse(["--frobnicate"])
        }
        #expect(throws: ProgramOptions.UsageError(message: "the option --data-dir needs a value; see --help.")) {
            try ProgramOptions.parse(["--data-dir"])
        }
        #expect(throws: ProgramOptions.UsageError(message: "unexpected argument 'modules'; to run a command use -c 'modules ...'.")) {
            try ProgramOptions.parse(["modules"])
        }
        #expect(throws: ProgramOptions.UsageError.self) { try ProgramOptions.parse(["-c", "x", "--script", "y"]) }
    }

    @Test("the help names every option")
    func help() {
        let text = ProgramOptions.helpText(programName: "uniti")
        for option in ["--command", "--script", "--data-dir", "--lang", "--server", "--json", "--version", "--help"] {
            #expect(text.contains(option))
        }
    }
}
