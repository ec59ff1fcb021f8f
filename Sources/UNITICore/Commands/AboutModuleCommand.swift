import ArgumentParser

/// `<module> about`: what the module is for, its version and where it comes from.
/// Every module lists this one command type; the text comes from its string table
/// (`<id>.about`), written for UNITI.
public struct AboutModuleCommand: ShellCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "about", abstract: L("core.about.abstract"))
    }

    public init() {}

    public func run(in context: ModuleContext) throws {
        let module = context.module
        let l = context.localizer
        context.console.line("\(module.name) (\(module.id)) \(module.version), \(context.program.localizedName)")
        context.console.line(module.summary)
        context.console.line()
        context.console.line(l("\(module.id).about"))
    }
}
