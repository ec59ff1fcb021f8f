import ArgumentParser
import Testing
import UNITICore
import UNITITesting

@Suite("The --json option group", .timeLimit(.minutes(10)))
struct JSONOutputTests {
    /// A listing command as the modules declare one.
    struct Listing: ParsableCommand {
        @OptionGroup var output: JSONOutput
    }

    @Test("a listing prints JSON when its own --json is given or the program was started with --json, and not otherwise")
    func flagOrGlobalOption() throws {
        let harness = try ModuleHarness([])
        let plain = harness.services
        let global = CoreServices(dataDirectory: plain.dataDirectory, database: plain.database, console: plain.console,
                                  input: plain.input, clock: plain.clock, random: plain.random, program: plain.program,
                                  prefersJSON: true)
        #expect(try Listing.parse(["--json"]).output.isRequested(in: plain))
        #expect(try Listing.parse([]).output.isRequested(in: global))
        #expect(try Listing.parse([]).output.isRequested(in: ModuleContext(services: global, module: .shell)))
        #expect(try !Listing.parse([]).output.isRequested(in: plain))
    }

    @Test("the flag is spelled --json and its help comes from the string tables")
    func spellingAndHelp() {
        let help = Listing.helpMessage()
        #expect(help.contains("--json"))
        #expect(help.contains(L("core.option.json")))
    }
}
