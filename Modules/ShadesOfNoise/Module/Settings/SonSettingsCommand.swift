import ArgumentParser
import Foundation
import UNITICore

/// `settings [privacy|team|project|imprint|contact|version|language [CODE]]` (standalone only,
/// Shades Of Noise thesis 6.4.7, FA23, FA24): the information pages, the version, and the
/// language, which switches at once (the thesis app needed a restart; this shell does not).
struct SonSettingsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "settings", abstract: L("son.settings.abstract"))
    }

    static let pages = InformationPages(owner: "son", topics: ["privacy", "team", "project", "imprint", "contact"])

    @Argument(help: ArgumentHelp(L("son.settings.topicHelp"), valueName: "topic"),
              completion: .list(["language", "version"] + pages.topics)) var topic: String?
    @Argument(help: ArgumentHelp(L("son.settings.valueHelp"), valueName: "code")) var value: String?

    func run(in context: ModuleContext) throws {
        let console = context.console
        switch topic?.lowercased() {
        case nil:
            console.line(L("son.settings.language", ["language": L("son.settings.languageName")]))
            console.line(L("son.settings.version", ["version": Self.versionLine(context)]))
            console.line(L("son.settings.pages", ["pages": Self.pages.topics.joined(separator: ", ")]))
        case "language":
            guard let value else {
                console.line(L("son.settings.language", ["language": L("son.settings.languageName")]))
                return
            }
            try LanguageSetting.switchTo(value, settings: context.settings)
            console.line(L("son.settings.languageSet", ["language": L("son.settings.languageName")]))
        case "version":
            console.line(Self.versionLine(context))
        default:
            console.line(try Self.pages.text(topic ?? ""))
        }
    }

    static func versionLine(_ context: ModuleContext) -> String {
        let module = context.module
        return "\(module.programName) \(UNITIVersion.string) (\(module.name) \(module.version), \(context.program.localizedName))"
    }
}
