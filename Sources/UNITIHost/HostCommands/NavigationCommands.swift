import ArgumentParser
import UNITICore

/// `use MODULE`: enter a module, so that its commands work without the prefix.
struct UseCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "use", abstract: L("host.use.abstract"))
    }

    @Argument(help: ArgumentHelp(L("host.use.module"))) var module: String

    func run(in shell: Shell) throws {
        try shell.enter(moduleID: module)
    }
}

/// `back`: leave the current module.
struct BackCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "back", abstract: L("host.back.abstract"))
    }

    func run(in shell: Shell) throws {
        shell.leaveModule()
    }
}

/// `exit` (or `quit`): leave the shell. Ctrl-D does the same.
struct ExitCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "exit", abstract: L("host.exit.abstract"), aliases: ["quit"])
    }

    func run(in shell: Shell) throws {
        shell.exitRequested = true
    }
}

/// `version`: the version and build kind, as `--version` prints them.
struct VersionCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "version", abstract: L("host.version.abstract"))
    }

    func run(in shell: Shell) throws {
        shell.console.line(Launcher.versionLine(programName: shell.program.programName, kind: shell.program.kind))
    }
}

/// `language [en|de]`: show or set the language; the change applies at once and is kept.
struct LanguageCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "language", abstract: L("host.language.abstract"))
    }

    @Argument(help: ArgumentHelp(L("host.language.code")), completion: .list(Language.allCases.map(\.rawValue))) var code: String?

    func run(in shell: Shell) throws {
        guard let code else {
            shell.console.line(shell.localizer("host.language.current", ["code": CurrentLanguage.value.rawValue]))
            return
        }
        try LanguageSetting.switchTo(code, settings: shell.services.settings)
        shell.console.line(shell.localizer("host.language.set"))
    }
}
