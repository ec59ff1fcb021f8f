import ArgumentParser

/// A command of a module, declared the swift-argument-parser way (arguments, options and help
/// next to each other) and run with the module's context instead of globals.
///
/// ```swift
/// struct Fill: ShellCommand {
///     static var configuration: CommandConfiguration {
///         CommandConfiguration(commandName: "fill", abstract: L("tyt.fill.abstract"))
///     }
///     func run(in context: ModuleContext) throws { ... }
/// }
/// ```
/// A command with subcommands (`tyt notify count`) lists them in its configuration; the shell
/// parses down to the leaf and runs it.
public protocol ShellCommand: ParsableCommand {
    func run(in context: ModuleContext) throws
}

extension ShellCommand {
    /// Commands run through `run(in:)`; a plain `run()` would have no context.
    public mutating func run() throws {
        throw UNITIError("internal: \(Self.commandName) must be run by the shell")
    }
}

extension ParsableCommand {
    /// The name the person types for this command.
    public static var commandName: String {
        configuration.commandName ?? _commandName
    }

    /// Names of the direct subcommands (for completion and help).
    public static var subcommandNames: [String] {
        configuration.subcommands.map { $0.commandName }
    }
}
