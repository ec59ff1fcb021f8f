import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server resource put MODULE NAME FILE` and `resource list`: module resources that
/// clients pull during sync, e.g. a newer Shades Of Noise sound catalogue
/// (`uniti-server resource put son sounds sounds.json`).
struct ResourceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resource", abstract: "Offer module resources (such as a sound catalogue) to the clients.",
        subcommands: [Put.self, List.self])

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "put",
            abstract: "Store a JSON document as a module's resource; clients take it over at their next sync when they can use it.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Module id, e.g. son.") var module: String
        @Argument(help: "Resource name, e.g. sounds.") var name: String
        @Argument(help: "The JSON file.") var file: String

        func run() async throws {
            guard let moduleId = ModuleID(rawValue: module) else {
                throw ValidationError("'\(module)' is not a module id: use \(ModuleID.ruleDescription).")
            }
            guard ModuleResourceRules.isValidName(name) else {
                throw ValidationError("'\(name)' is not a resource name: use \(ModuleResourceRules.nameDescription).")
            }
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw ValidationError("Cannot read '\(file)'.")
            }
            guard let content = try? JSONDecoder().decode(JSONValue.self, from: data), case .object = content else {
                throw ValidationError("'\(file)' is not a JSON object.")
            }
            let store = try await database.openStore()
            let changed = try await store.putResource(moduleId: moduleId, name: name, content: content, now: Date())
            print(changed ? "Stored \(module)/\(name); clients take it over at their next sync."
                          : "\(module)/\(name) is already stored with this content.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the stored module resources.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let resources = try await database.openStore().resources()
            CommandOutput.table(["module", "name", "updated"], resources.map {
                [$0.moduleId, $0.name, Timestamps.format($0.updatedAt)]
            })
        }
    }
}
