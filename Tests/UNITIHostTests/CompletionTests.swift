import Testing
import UNITIProtocol
@testable import UNITIHost

@Suite("Tab completion", .isolatedLanguage, .timeLimit(.minutes(10)))
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

    // MARK: - Argument values (issue 29, point 9)

    @Test("after 'son play' Tab offers the catalogue's sounds, not options; '-' offers the options")
    func soundNames() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        let sounds = fixture.shell.completions(after: ["son", "play"])
        #expect(sounds.contains("pink-noise") && sounds.contains("rain"), "\(sounds)")
        #expect(!sounds.contains { $0.hasPrefix("-") })
        #expect(fixture.shell.completions(after: ["son", "play"], partial: "-").contains("--minutes"))
        // An option's value from its declared list; once the sound is given, the options.
        #expect(fixture.shell.completions(after: ["son", "play", "--minutes"]) == ["1", "2", "5", "10", "unlimited"])
        #expect(fixture.shell.completions(after: ["son", "play", "--minutes", "5"]).contains("pink-noise"))
        #expect(fixture.shell.completions(after: ["son", "play", "rain"]).contains("--rating"))
        // Inside the module, without its prefix.
        fixture.shell.execute(line: "use son")
        #expect(fixture.shell.completions(after: ["render"]).contains("brown-noise"))
    }

    @Test("on|off, weekdays, topics and kinds come from the arguments' declarations")
    func declaredValues() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        #expect(fixture.shell.completions(after: ["tyh", "reminders", "sound"]) == ["on", "off"])
        #expect(fixture.shell.completions(after: ["tyh", "reminders", "day"]) == ["mon", "tue", "wed", "thu", "fri", "sat", "sun"])
        #expect(fixture.shell.completions(after: ["tyh", "reminders", "day", "sat"]) == ["on", "off"])
        #expect(fixture.shell.completions(after: ["tyt", "notify", "add"]).first == "mon")
        #expect(fixture.shell.completions(after: ["tyt", "about"]) == ["team", "project", "privacy", "licenses", "imprint"])
        #expect(fixture.shell.completions(after: ["sensors"]) == ["allow", "refuse"])
        #expect(fixture.shell.completions(after: ["sensors", "allow"]).contains("microphone"))
        #expect(fixture.shell.completions(after: ["language"]) == ["en", "de", "es", "el", "nl"])
        #expect(fixture.shell.completions(after: ["tn", "events", "--type"]).contains("appointment"))
    }

    @Test("questionnaire ids of the module, record ids of the health record, the studies the person knows")
    func runTimeValues() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        let questionnaires = fixture.shell.completions(after: ["tys", "fill"])
        #expect(!questionnaires.isEmpty && questionnaires.allSatisfy { $0.hasPrefix("tys-demo") }, "\(questionnaires)")
        #expect(fixture.shell.completions(after: ["tys", "reminders", "window"]) == questionnaires)

        #expect(fixture.shell.completions(after: ["tn", "audiogram", "show"]).isEmpty)
        #expect(fixture.shell.execute(line: "tn audiogram add --date 2026-11-20 --left 10,15,20,25,30,40,50 --right 5,10,10,15,20,35,45") == .success)
        let ids = fixture.shell.completions(after: ["tn", "audiogram", "show"])
        #expect(ids.count == 1 && ids[0].count >= 4, "\(ids)")
        #expect(fixture.shell.completions(after: ["tn", "audiogram", "show", ids[0], "--compare"]) == ids)

        #expect(fixture.shell.completions(after: ["study", "join"]).isEmpty)
        try fixture.shell.services.studies.recordJoined(StudyDescriptor(id: "hearing-2026", title: "Hearing", modules: ["tyh"]),
                                                         at: fixture.harness.clock.now)
        #expect(fixture.shell.completions(after: ["study", "info"]) == ["hearing-2026"])
        #expect(fixture.shell.completions(after: ["study", "leave"]) == ["hearing-2026"])
    }

    @Test("the common prefix of several candidates is what Tab inserts")
    func commonPrefix() {
        #expect(LineEditor.commonPrefix(["status", "study", "studies"]) == "st")
        #expect(LineEditor.commonPrefix(["modules"]) == "modules")
    }
}

@Suite("Suggestions", .timeLimit(.minutes(10)))
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
