import Foundation
import PackagePlugin

/// Generates Swift from the one list of modules, `Modules/modules.json`: the known module ids
/// for `UNITIProtocol` (shared by client and server) and the module instances of the integrated
/// host (`uniti`, and the shell's tests, which run every module). Adding a module therefore needs
/// no Swift edit outside its own folder.
@main
struct ModuleListPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let manifest = context.package.directoryURL.appending(path: "Modules/modules.json")
        let kind: String
        switch target.name {
        case "UNITIProtocol": kind = "catalog"
        case "uniti", "UNITIHostTests": kind = "host"
        default: return []
        }
        let output = context.pluginWorkDirectoryURL.appending(path: kind == "catalog" ? "KnownModules.swift" : "FeatureModules.swift")
        return [.buildCommand(
            displayName: "Generating the \(kind) module list from Modules/modules.json",
            executable: try context.tool(named: "module-list-generator").url,
            arguments: [kind, manifest.path(percentEncoded: false), output.path(percentEncoded: false)],
            inputFiles: [manifest],
            outputFiles: [output]
        )]
    }
}
