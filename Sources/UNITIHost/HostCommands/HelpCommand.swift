import ArgumentParser
import UNITICore

/// `help [command ...]`: the list of commands here, or the full help of one command.
struct HelpCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "help", abstract: L("host.help.abstract"))
    }

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp(L("host.help.topic")))
    var topic: [String] = []

    func run(in shell: Shell) throws {
        guard !topic.isEmpty else {
            overview(shell)
            return
        }
        try detail(shell, words: topic)
    }

    private func overview(_ shell: Shell) {
        let l = shell.localizer
        shell.console.line(l("host.help.commands"))
        shell.printTable(shell.hostCommands.map { ($0.commandName, $0.configuration.abstract) })
        if let module = shell.currentModule {
            shell.console.line()
            shell.printModuleHelp(module)
        }
        if !shell.program.isStandalone {
            shell.console.line()
            shell.console.line(l("host.help.modules"))
            shell.printTable(shell.registry.modules.map { ($0.descriptor.id.rawValue, $0.descriptor.summary) })
            shell.console.line()
            shell.console.line(l("host.help.footer"))
        }
    }

    private func detail(_ shell: Shell, words: [String]) throws {
        let width = shell.console.width
        if let module = shell.currentModule,
           let type = shell.commands(of: module).first(where: { $0.commandName == words[0] }) {
            shell.console.line(ParserText.help(try helpText(type, path: Array(words.dropFirst()), width: width), path: words, shell.localizer))
            return
        }
        if let type = shell.hostCommand(named: words[0]) {
            shell.console.line(ParserText.help(try helpText(type, path: Array(words.dropFirst()), width: width), path: words, shell.localizer))
            return
        }
        if !shell.program.isStandalone, let module = shell.registry.module(id: words[0]) {
            guard words.count > 1 else {
                shell.printModuleHelp(module)
                return
            }
            guard let type = shell.commands(of: module).first(where: { $0.commandName == words[1] }) else {
                throw UNITIError(shell.localizer("host.error.unknownModuleCommand", ["module": module.descriptor.id.rawValue, "command": words[1]]))
            }
            shell.console.line(ParserText.help(try helpText(type, path: Array(words.dropFirst(2)), width: width), path: words, shell.localizer))
            return
        }
        throw UNITIError(shell.unknownCommandMessage(words[0]))
    }

    /// The help of `type`, or of the subcommand reached by following `path` from it.
    private func helpText(_ type: any ParsableCommand.Type, path: [String], width: Int) throws -> String {
        var leaf: any ParsableCommand.Type = type
        for name in path {
            guard let next = leaf.configuration.subcommands.first(where: { $0.commandName == name }) else {
                throw UNITIError(L("host.error.unknownSubcommand", ["command": leaf.commandName, "sub": name]))
            }
            leaf = next
        }
        return type.helpMessage(for: leaf, columns: width)
    }
}
