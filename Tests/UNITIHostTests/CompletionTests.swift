import Testing
@testable import UNITIHost

@Suite("Tab completion", .isolatedLanguage)
struct CompletionTests {
    @Test("at the start of a line: host commands and module ids")
    func topLevel() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        let words = fixture.shell.completions(after: [])
        #expect(words.contains("modules"))
        #expect(words.contains("echo"))
        #expect(words.contains("quit"))
        #expect(!words.contains("say"))
    }

    @Test("after a module id: its commands; after a group: its subcommands; at a leaf: its options")
    func moduleCommandsAndSubcommands() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.completions(after: ["echo"]) == ["ask", "fail", "notify", "say"])
        #expect(fixture.shell.completions(after: ["echo", "notify"]) == ["count", "show"])
        #expect(fixture.shell.completions(after: ["echo", "notify", "count"]) == ["--window"])
        #expect(fixture.shell.completions(after: ["echo", "say"]) == ["--loud"])
    }

    @Test("use and help complete module ids and commands; inside a module its commands come first")
    func useHelpAndInside() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.completions(after: ["use"]) == ["echo"])
        #expect(fixture.shell.completions(after: ["help", "echo"]) == ["ask", "fail", "notify", "say"])
        fixture.shell.execute(line: "use echo")
        #expect(fixture.shell.completions(after: []).contains("say"))
        #expect(fixture.shell.completions(after: ["notify"]) == ["count", "show"])
    }

    @Test("the common prefix of several candidates is what Tab inserts")
    func commonPrefix() {
        #expect(LineEditor.commonPrefix(["status", "study", "studies"]) == "st")
        #expect(LineEditor.commonPrefix(["modules"]) == "modules")
    }
}

@Suite("Suggestions")
struct SuggesterTests {
    @Test("edit distance counts insertions, deletions, substitutions and swaps as one")
    func distance() {
        #expect(CommandSuggester.editDistance("modules", "modules") == 0)
        #expect(CommandSuggester.editDistance("modlues", "modules") == 1)
        #expect(CommandSuggester.editDistance("stats", "status") == 1)
        #expect(CommandSuggester.editDistance("", "abc") == 3)
    }

    @Test("only plausible typos are suggested")
    func plausibleOnly() {
        let commands = ["help", "modules", "status", "son", "use"]
        #expect(CommandSuggester.closest(to: "hepl", among: commands) == "help")
        #expect(CommandSuggester.closest(to: "foo", among: commands) == nil)
        #expect(CommandSuggester.closest(to: "modu", among: commands) == "modules")
    }
}
