import Foundation
import Testing
import UNITIConfigurations
import UNITIResources
@testable import TinnitusNavigatorServer
@testable import UNITIServer

/// The files the programs ship with are compiled into them (the GeneratedSourcesPlugin and
/// `uniti-codegen resources`): what is compiled in must be exactly the repository's files, and a
/// build that lacks one the server needs says which in one line.
@Suite("Resources compiled into the programs", .timeLimit(.minutes(2)))
struct CompiledResourcesTests {
    static let root = repositoryRoot

    /// Every file under `folder` of the repository (hidden ones aside), by path, with its bytes.
    static func onDisk(_ folder: String) throws -> [String: Data] {
        let base = root.appendingPathComponent(folder).path
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: base) where !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: base + "/" + path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[path] = FileManager.default.contents(atPath: base + "/" + path)
        }
        return files
    }

    @Test("each Resources folder is compiled in whole, byte for byte, and nothing else")
    func compiledAreTheRepositorysFiles() throws {
        let compiled = [
            (BundledConfiguration.files, "Configurations/Resources"),
            (UNITIServer.compiledResources, "Sources/UNITIServer/Resources"),
            (TinnitusNavigatorServer.compiledResources, "Modules/TinnitusNavigator/Server/Resources"),
        ]
        for (resources, folder) in compiled {
            #expect(resources.origin == folder)
            let disk = try Self.onDisk(folder)
            #expect(disk.count >= 3, "\(folder)")
            #expect(resources.files.map(\.path) == disk.keys.sorted(), "\(folder)")
            for file in resources.files {
                #expect(file.data == disk[file.path], "\(folder)/\(file.path) differs from the repository's")
            }
        }
        // What the server looks up by folder (the bundled questionnaires' ids) comes from them too.
        #expect(QuestionnaireModules.bundledIds.contains("tyt-momentary"))
        #expect(QuestionnaireModules.bundledIds.count == (try Self.onDisk("Configurations/Resources/Questionnaires")).count)
    }

    @Test("a folder's files are found by their path inside it, and only those directly inside")
    func folderLookup() throws {
        let resources = CompiledResources(origin: "Example/Resources", files: [
            .init(path: "Portal/a.mustache", text: "A"), .init(path: "Portal/deeper/b.mustache", text: "B"), .init(path: "top.json", text: "{}"),
        ])
        let portal = resources.folder("Portal")
        #expect(portal.origin == "Example/Resources/Portal")
        #expect(portal.files.map(\.path) == ["a.mustache"])
        #expect(resources.data("top.json") == Data("{}".utf8))
        #expect(resources.data("a.mustache") == nil)
        #expect(throws: MissingResource.self) { try portal.required("b.mustache") }
    }

    @Test("a build without the portal's style sheet, script or layout is refused in one line naming the file")
    func missingPortalFileIsNamed() throws {
        let shipped = PortalTemplates.shipped
        _ = try PortalTemplates(shipped)
        for missing in ["portal.css", "portal.js", "layout.mustache"] {
            let partial = CompiledResources(origin: shipped.origin, files: shipped.files.filter { $0.path != missing })
            do {
                _ = try PortalTemplates(partial)
                Issue.record("templates without \(missing) were accepted")
            } catch {
                let message = "\(error)"
                #expect(message.contains("Sources/UNITIServer/Resources/Portal/\(missing)"), "\(message)")
                #expect(!message.contains("\n"))
            }
        }
        // The real build has everything `serve` checks before it starts.
        try ServerApplication.checkResources(portal: true, modules: serverModuleParts)
    }
}
