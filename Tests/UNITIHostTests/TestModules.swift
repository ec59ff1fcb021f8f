import ArgumentParser
import Foundation
import Testing
import UNITICore
import UNITIProtocol
@testable import UNITIHost

/// A small module for shell tests: one command that records its arguments, one group with
/// subcommands, and one that asks a question.
struct EchoModule: UNITIModule {
    var id = "echo"
    var extraCommands: [any ShellCommand.Type] = []
    var descriptor: ModuleDescriptor {
        ModuleDescriptor(id: id, name: "Echo", programName: "echo-program", version: "1.0")
    }
    var commands: [any ShellCommand.Type] {
        [SayCommand.self, NotifyGroup.self, AskCommand.self, FailCommand.self] + extraCommands
    }
}

struct SayCommand: ShellCommand {
    static let configuration = CommandConfiguration(commandName: "say", abstract: "Print the words.")
    @Argument var words: [String] = []
    @Flag var loud = false

    func run(in context: ModuleContext) throws {
        let text = words.joined(separator: "|")
        context.console.line(loud ? text.uppercased() : text)
    }
}

struct NotifyGroup: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify", abstract: "Reminder settings.", subcommands: [Count.self, Show.self])
    func run(in context: ModuleContext) throws {}

    struct Count: ShellCommand {
        static let configuration = CommandConfiguration(commandName: "count", abstract: "Set the count.")
        @Argument var count: Int
        @Option var window: String?
        func run(in context: ModuleContext) throws { context.console.line("count=\(count)") }
    }

    struct Show: ShellCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show.")
        func run(in context: ModuleContext) throws { context.console.line("showing") }
    }
}

struct AskCommand: ShellCommand {
    static let configuration = CommandConfiguration(commandName: "ask", abstract: "Ask a question.")
    func run(in context: ModuleContext) throws {
        let answer = try context.input.requireLine(prompt: "Name? ")
        context.console.line("hello \(answer)")
    }
}

struct FailCommand: ShellCommand {
    static let configuration = CommandConfiguration(commandName: "fail", abstract: "Always fails.")
    func run(in context: ModuleContext) throws { throw UNITIError("it failed on purpose") }
}

/// Gives each test its own current language (English to start), so tests that switch the
/// language run in parallel with tests that read texts.
struct IsolatedLanguage: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await CurrentLanguage.$scope.withValue(LockedValue(.english)) {
            try await function()
        }
    }
}

extension Trait where Self == IsolatedLanguage {
    static var isolatedLanguage: Self { IsolatedLanguage() }
}

/// A shell over a temporary data directory with captured output.
struct ShellFixture {
    let shell: Shell
    let output: CapturedOutput
    let directory: String

    init(modules: [any UNITIModule] = [EchoModule()], standalone: Bool = false, input: [String] = []) throws {
        directory = NSTemporaryDirectory() + "uniti-shell-\(UUID().uuidString)"
        let dataDirectory = DataDirectory(path: directory)
        try dataDirectory.create()
        let kind: ShellProgram = standalone ? .standalone(modules[0]) : .host(programName: "uniti")
        let commands = Launcher.hostCommands(for: kind)
        let reserved = Set(commands.flatMap { [$0.commandName] + $0.configuration.aliases })
        let registry = try ModuleRegistry(modules, reservedNames: reserved, commandsAtTopLevel: standalone)
        let database = try AppDatabase(path: dataDirectory.databasePath, migrationSets: registry.migrationSets)
        let (console, output) = Console.capturing()
        let services = CoreServices(dataDirectory: dataDirectory, database: database, console: console,
                                    input: ScriptedInput(input), clock: FixedClock(Date(timeIntervalSince1970: 1_800_000_000)))
        shell = Shell(registry: registry, services: services, kind: kind, hostCommands: commands)
        // The test modules are not in the bundled default study; a test study enables them.
        if modules.contains(where: { $0.descriptor.id == "echo" }) {
            try services.studies.recordJoined(
                StudyDescriptor(id: "test-study", title: "Test study", modules: modules.map { $0.descriptor.id }),
                at: services.clock.now)
        }
        self.output = output
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
