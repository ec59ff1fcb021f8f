import Testing
import UNITICore
import UNITIProtocol
@testable import UNITIHost

/// Every module of the one list (`featureModules` is generated from Modules/modules.json).
let allRealModules: [any UNITIModule] = featureModules

@Suite("Command dispatch", .isolatedLanguage, .timeLimit(.minutes(10)))
struct DispatchTests {
    @Test("a module command runs from anywhere with its prefix, with parsed arguments and flags")
    func prefixedModuleCommand() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "echo say 'hello world' again --loud") == .success)
        #expect(fixture.output.out == "HELLO WORLD|AGAIN\n")
    }

    @Test("inside a module its commands need no prefix; back returns; the prompt tells where you are")
    func useAndBack() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.prompt == "uniti> ")
        #expect(fixture.shell.execute(line: "use echo") == .success)
        #expect(fixture.shell.prompt == "uniti/echo> ")
        #expect(fixture.shell.execute(line: "say inside") == .success)
        #expect(fixture.shell.execute(line: "back") == .success)
        #expect(fixture.shell.prompt == "uniti> ")
        #expect(fixture.shell.execute(line: "say outside") == .failure)
        #expect(fixture.output.out == "inside\n")
        #expect(fixture.output.err.contains("unknown command 'say'. Did you mean 'echo say'?"))
    }

    @Test("nested subcommands are parsed down to the leaf")
    func nestedSubcommands() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "echo notify count 5") == .success)
        #expect(fixture.output.out == "count=5\n")
    }

    @Test("a usage error is one line on stderr naming the problem and where to get help")
    func usageError() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "echo notify count five") == .failure)
        let lines = fixture.output.err.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines[0].contains("five"))
        #expect(lines[0].hasSuffix("(see 'help echo notify count')"))
        #expect(fixture.output.out.isEmpty)
    }

    @Test("an unknown command gets the closest known one")
    func didYouMean() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "modlues") == .failure)
        #expect(fixture.output.err == "error: unknown command 'modlues'. Did you mean 'modules'?\n")
    }

    @Test("an unknown subcommand of a module suggests the closest one")
    func unknownModuleCommand() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "echo sya hi") == .failure)
        #expect(fixture.output.err.contains("module echo has no command 'sya'. Did you mean 'echo say'?"))
    }

    @Test("a failing command prints one error line and the shell goes on")
    func failingCommand() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "echo fail") == .failure)
        #expect(fixture.shell.execute(line: "echo say ok") == .success)
        #expect(fixture.output.err == "error: it failed on purpose\n")
    }

    @Test("a command's question reads its answer from the following input line")
    func questionReadsNextLine() throws {
        let fixture = try ShellFixture(input: ["Ada"])
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "echo ask") == .success)
        #expect(fixture.output.out == "hello Ada\n")
    }

    @Test("a question whose input has ended cancels the command without success")
    func endOfInputCancels() throws {
        let fixture = try ShellFixture(input: [])
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "echo ask") == .failure)
        #expect(fixture.output.err.contains("Nothing was saved"))
    }

    @Test("a disabled module answers with the study that would enable it")
    func disabledModule() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        // Leaving the only study that enables `echo` for one that does not disables it.
        try fixture.shell.services.studies.recordLeft("test-study")
        try fixture.shell.services.studies.recordJoined(
            StudyDescriptor(id: "other", title: "Other", modules: ["tyt"]), at: fixture.shell.services.clock.now)
        #expect(fixture.shell.execute(line: "echo say hi") == .failure)
        #expect(fixture.shell.execute(line: "use echo") == .failure)
        #expect(fixture.shell.prompt == "uniti> ")
        #expect(fixture.output.err == String(repeating:
            "error: module echo is not enabled by your studies; the study 'test-study' (Test study) enables it: 'study join test-study'.\n", count: 2))
        #expect(fixture.output.out.isEmpty)
    }

    @Test("standalone, the module's commands are at top level and `use` does not exist")
    func standaloneTopLevel() throws {
        let fixture = try ShellFixture(standalone: true)
        defer { fixture.remove() }
        #expect(fixture.shell.prompt == "echo-program> ")
        #expect(fixture.shell.execute(line: "say top") == .success)
        #expect(fixture.shell.execute(line: "use echo") == .failure)
        #expect(fixture.output.out == "top\n")
    }

    @Test("help lists host commands and modules; help of a command shows its usage")
    func help() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "help") == .success)
        #expect(fixture.output.out.contains("modules"))
        #expect(fixture.output.out.contains("echo"))
        #expect(fixture.shell.execute(line: "help echo notify count") == .success)
        #expect(fixture.output.out.contains("USAGE: notify count <count> [--window <window>]"))
        #expect(fixture.shell.execute(line: "help nosuch") == .failure)
    }

    @Test("--help on a command with subcommands shows that command's help, not the help of 'help' (account, a subcommand, a module group)",
          .timeLimit(.minutes(10)))
    func helpOptionOnGroups() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        for (line, usage) in [("account --help", "USAGE: account <subcommand>"), ("account deactivate --help", "USAGE: account deactivate"),
                              ("echo notify --help", "USAGE: notify <subcommand>"), ("echo notify count --help", "USAGE: notify count <count>"),
                              ("study -h", "USAGE: study <subcommand>")] {
            let start = fixture.output.out.endIndex
            #expect(fixture.shell.execute(line: line) == .success)
            let shown = String(fixture.output.out[start...])
            #expect(shown.contains(usage), "\(line): \(shown)")
            #expect(!shown.contains("help [<subcommands>"), "\(line): \(shown)")
        }
        #expect(fixture.output.out.contains("deactivate"))
    }

    @Test("language switches at once and is kept")
    func languageSwitch() throws {
        let fixture = try ShellFixture()
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "language de") == .success)
        #expect(fixture.shell.execute(line: "frobnicate") == .failure)
        #expect(fixture.output.err.contains("unbekannter Befehl 'frobnicate'"))
        #expect(try fixture.shell.services.settings.string("language") == "de")
        #expect(fixture.shell.execute(line: "language klingon") == .failure)
    }

    @Test("modules --json lists every module with its state and the build kind")
    func modulesJSON() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        defer { fixture.remove() }
        #expect(fixture.shell.execute(line: "modules --json") == .success)
        struct Listing: Decodable { let build: String; let modules: [Row] }
        struct Row: Decodable { let id: String; let enabled: Bool }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(fixture.output.out.utf8))
        #expect(listing.build == "integrated")
        #expect(listing.modules.map(\.id) == ModuleCatalog.ids.map(\.rawValue))
        #expect(listing.modules.allSatisfy { $0.enabled })
    }

    @Test("every real module has an about command with its own text in both languages")
    func aboutCommands() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        defer { fixture.remove() }
        for module in allRealModules {
            let id = module.descriptor.id
            #expect(fixture.shell.execute(line: "\(id) about") == .success)
            #expect(Localizer(language: .english).hasKey("\(id).about"))
            #expect(Localizer(language: .german)("\(id).about") != Localizer(language: .english)("\(id).about"))
        }
        #expect(fixture.output.out.contains("TrackYourTinnitus (tyt)"))
        #expect(fixture.output.out.contains("ShadesOfNoise (son)"))
    }
}

import Foundation
