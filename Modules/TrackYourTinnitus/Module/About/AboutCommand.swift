import ArgumentParser
import Foundation
import UNITICore

/// `tyt about [team|project|privacy|licenses|imprint]` (thesis: the app's information pages).
/// Without a topic it shows what every module's `about` shows.
struct AboutCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "about", abstract: L("core.about.abstract"))
    }

    static let topics = ["team", "project", "privacy", "licenses", "imprint"]

    @Argument(help: ArgumentHelp(L("tyt.about.topic"), valueName: "team|project|privacy|licenses|imprint"),
              completion: .list(topics)) var topic: String?

    init() {}

    func run(in context: ModuleContext) throws {
        guard let topic else {
            try AboutModuleCommand().run(in: context)
            context.console.line()
            context.console.line(L("tyt.about.more"))
            return
        }
        context.console.line(try InformationPages(owner: "tyt", topics: Self.topics).text(topic))
    }
}
