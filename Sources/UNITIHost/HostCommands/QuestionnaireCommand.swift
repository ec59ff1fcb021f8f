import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `questionnaire validate FILE` and `questionnaire preview FILE [--json]`: tools for study
/// coordinators writing questionnaire definitions. The work is done in UNITICore
/// (`QuestionnaireAuthoring`, `QuestionnaireEngine`); this only parses and prints.
struct QuestionnaireCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "questionnaire", abstract: L("questionnaire.command.abstract"),
                             subcommands: [Validate.self, Preview.self])
    }

    func run(in shell: Shell) throws {
        shell.console.line(ParserText.help(Self.helpMessage(columns: shell.console.width), path: [Self.commandName], shell.localizer))
    }

    struct Validate: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "validate", abstract: L("questionnaire.validate.abstract"))
        }

        @Argument(help: ArgumentHelp(L("questionnaire.option.file"), valueName: "file")) var file: String
        @OptionGroup var output: JSONOutput

        func run(in shell: Shell) throws {
            let report = try QuestionnaireAuthoring.validate(file: file)
            if output.isRequested(in: shell.services) {
                try shell.console.json(report)
            } else {
                for line in QuestionnaireAuthoring.lines(for: report, localizer: shell.localizer) { shell.console.line(line) }
            }
            if !report.valid {
                throw UNITIError(shell.localizer("questionnaire.validate.invalid", [
                    "path": file, "problems": shell.localizer("questionnaire.count.problems", count: report.problems.count),
                ]))
            }
        }
    }

    struct Preview: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "preview", abstract: L("questionnaire.preview.abstract"))
        }

        @Argument(help: ArgumentHelp(L("questionnaire.option.file"), valueName: "file")) var file: String
        @OptionGroup var output: JSONOutput

        func run(in shell: Shell) throws {
            let definition = try QuestionnaireLoader.load(path: file)
            let result = try QuestionnaireEngine(services: shell.services).answer(definition, owner: .shell, keepsDraft: false)
            if output.isRequested(in: shell.services) {
                try shell.console.json(result)
            } else {
                for line in QuestionnaireAuthoring.summary(of: result, definition: definition, localizer: shell.localizer) {
                    shell.console.line(line)
                }
                shell.console.line(shell.localizer("questionnaire.preview.notStored"))
            }
        }
    }
}
