import Foundation
import PackagePlugin

/// Generates Swift at build time from the data files people edit (`uniti-codegen` does the work):
/// - from the one list of modules, `Modules/modules.json`: the known module ids for
///   `UNITIProtocol` (shared by client and server) and the module instances of the integrated
///   host (`uniti`, and the shell's tests, which run every module), and the module parts of the
///   study server (`uniti-server` and the server's tests: the targets `<name>Server` they depend
///   on), so adding a module needs no Swift edit outside its own folder;
/// - from `Localization/Strings/<language>/*.json`: the string tables, compiled into
///   `UNITILocalization`, so no start of the program reads and parses them;
/// - from a target's `Resources` folder (`Configurations/Resources`, the server's portal and
///   OpenAPI document, a module part's templates): its files, compiled into the target as
///   `compiledResources`, so a program works wherever it is copied (see `CompiledResources`).
@main
struct GeneratedSourcesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "uniti-codegen").url
        switch target.name {
        case "UNITIProtocol", "uniti", "UNITIHostTests", "uniti-server", "UNITIServerTests":
            let manifest = context.package.directoryURL.appending(path: "Modules/modules.json")
            let kind = switch target.name {
            case "UNITIProtocol": "catalog"
            case "uniti-server", "UNITIServerTests": "server"
            default: "host"
            }
            let output = context.pluginWorkDirectoryURL.appending(path: kind == "catalog" ? "KnownModules.swift" : "FeatureModules.swift")
            // For the server: the module parts this target is built with.
            let parts = kind == "server" ? target.dependencies.compactMap { dependency -> String? in
                guard case .target(let part) = dependency, part.name.hasSuffix("Server"), part.name != "UNITIServer" else { return nil }
                return part.name
            } : []
            return [.buildCommand(
                displayName: "Generating the \(kind) module list from Modules/modules.json",
                executable: tool,
                arguments: [kind, manifest.path(percentEncoded: false), output.path(percentEncoded: false)] + parts,
                inputFiles: [manifest],
                outputFiles: [output]
            )]
        case "UNITILocalization":
            let strings = context.package.directoryURL.appending(path: "Localization/Strings")
            let tables = try FileManager.default.subpathsOfDirectory(atPath: strings.path(percentEncoded: false))
                .filter { $0.hasSuffix(".json") }.sorted()
                .map { strings.appending(path: $0) }
            let output = context.pluginWorkDirectoryURL.appending(path: "CompiledStringTables.swift")
            return [.buildCommand(
                displayName: "Compiling the string tables from Localization/Strings",
                executable: tool,
                arguments: ["strings", strings.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: tables,
                outputFiles: [output]
            )]
        default:
            let resources = target.directoryURL.appending(path: "Resources")
            let folder = resources.path(percentEncoded: false)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else { return [] }
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
                .filter { path in
                    var isSubfolder: ObjCBool = false
                    return FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isSubfolder) && !isSubfolder.boolValue
                }
                .map { resources.appending(path: $0) }
            let package = context.package.directoryURL.path(percentEncoded: false)
            let origin = folder.hasPrefix(package) ? String(folder.dropFirst(package.count)).trimmingCharacters(in: ["/"]) : folder
            let output = context.pluginWorkDirectoryURL.appending(path: "CompiledResources.swift")
            return [.buildCommand(
                displayName: "Compiling the resources of \(target.name) from \(origin)",
                executable: tool,
                arguments: ["resources", folder, output.path(percentEncoded: false), origin],
                inputFiles: files,
                outputFiles: [output]
            )]
        }
    }
}
