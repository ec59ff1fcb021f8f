import ArgumentParser

/// `--json` of every listing command, declared once:
///
/// ```swift
/// @OptionGroup var output: JSONOutput
/// ...
/// if output.isRequested(in: context) { try context.console.json(rows); return }
/// ```
///
/// A listing prints JSON when this flag is given *or* the program was started with the global
/// `--json` (``CoreServices/prefersJSON``). ``isRequested(in:)`` answers both at once, so no command
/// honours one and forgets the other, and every `--json` has the same help text.
public struct JSONOutput: ParsableArguments {
    @Flag(name: .long, help: ArgumentHelp(L("core.option.json"))) public var json = false

    public init() {}

    /// Whether to print JSON: this command's `--json` or the program's.
    public func isRequested(in services: CoreServices) -> Bool {
        json || services.prefersJSON
    }

    /// Whether to print JSON: this command's `--json` or the program's.
    public func isRequested(in context: ModuleContext) -> Bool {
        isRequested(in: context.services)
    }
}
