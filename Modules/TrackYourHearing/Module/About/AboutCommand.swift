import ArgumentParser
import Foundation
import UNITICore

/// `tyh about [hearing|reminders|rewards|privacy|team]` (thesis FR2: information topics and
/// their pages). Without a topic it shows what every module's `about` shows and the topics.
struct AboutCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "about", abstract: L("core.about.abstract"))
    }

    static let topics = ["hearing", "reminders", "rewards", "privacy", "team"]

    @Argument(help: ArgumentHelp(L("tyh.about.topic"), valueName: "hearing|reminders|rewards|privacy|team"),
              completion: .list(topics)) var topic: String?

    init() {}

    func run(in context: ModuleContext) throws {
        guard let topic else {
            try AboutModuleCommand().run(in: context)
            context.console.line()
            context.console.line(L("tyh.about.more"))
            return
        }
        context.console.line(try InformationPages(owner: "tyh", topics: Self.topics).text(topic))
    }
}
