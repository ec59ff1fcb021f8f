import ArgumentParser
import Foundation
import UNITICore

/// `son frequency [show]` and `son frequency set HZ`: the tinnitus frequency the notched,
/// narrow-band and tone sounds are built around.
struct FrequencyCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "frequency", abstract: L("son.frequency.abstract"),
                             subcommands: [Show.self, Set.self], defaultSubcommand: Show.self)
    }

    func run(in context: ModuleContext) throws {
        try Show().run(in: context)
    }

    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("son.frequency.show.abstract"))
        }

        func run(in context: ModuleContext) throws {
            if let value = try TinnitusFrequency.stored(in: context) {
                context.console.line(L("son.frequency.current", ["hz": CurrentLanguage.value.number(value)]))
            } else {
                context.console.line(L("son.frequency.unset"))
            }
        }
    }

    struct Set: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "set", abstract: L("son.frequency.set.abstract"))
        }

        @Argument(help: ArgumentHelp(L("son.frequency.hzHelp"), valueName: "hz")) var hz: String

        func run(in context: ModuleContext) throws {
            let value = try TinnitusFrequency.store(hz, in: context)
            context.console.line(L("son.frequency.saved", ["hz": CurrentLanguage.value.number(value)]))
        }
    }
}
