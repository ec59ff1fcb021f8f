import ArgumentParser
import Foundation
import Testing
import UNITICore
import UNITIProtocol
@testable import UNITIHost
import UNITITesting

/// A small module for shell tests: one command that records its arguments, one group with
/// subcommands, and one that asks a question.
struct EchoModule: UNITIModule {
    var id = ModuleID(known: "echo")
    var extraCommands: [any ShellCommand.Type] = []
    /// Commands only its standalone program has.
    var standaloneCommands: [any ShellCommand.Type] = []
    var descriptor: ModuleDescriptor {
        ModuleDescriptor(id: id, name: "Echo", programName: "echo-program", version: "1.0")
    }
    func commands(for program: ProgramKind) -> [any ShellCommand.Type] {
        [SayCommand.self, NotifyGroup.self, AskCommand.self, FailCommand.self] + extraCommands
            + (program == .standalone ? standaloneCommands : [])
    }
    var migrations: [ModuleMigration] { [] }
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

/// A shell over a temporary data directory with captured output (the shared harness).
struct ShellFixture {
    let harness: ModuleHarness
    var shell: Shell { harness.shell }
    var output: CapturedOutput { harness.output }
    var directory: String { harness.directory.path }

    init(modules: [any UNITIModule] = [EchoModule()], standalone: Bool = false, input: [String] = []) throws {
        harness = try ModuleHarness(modules, program: standalone ? .standalone : .integrated, input: input,
                                    now: Date(timeIntervalSince1970: 1_800_000_000), timeZone: TimeZone(identifier: "UTC")!)
    }

    /// Kept for the tests' `defer`: the harness removes its directory when it goes away.
    func remove() {}
}
