// Turns Modules/modules.json into Swift source for the module-list build plugin:
//
//   module-list-generator catalog MANIFEST OUTPUT   the known modules, for UNITIProtocol
//   module-list-generator host MANIFEST OUTPUT      the integrated host's module instances
//
// A malformed manifest stops the build with one line naming what is wrong.
import Foundation

struct Entry: Decodable {
    let id: String
    let name: String
    let program: String
}

struct Manifest: Decodable {
    let modules: [Entry]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("module-list-generator: \(message)\n".utf8))
    exit(1)
}

func swiftString(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

let arguments = CommandLine.arguments
guard arguments.count == 4, ["catalog", "host"].contains(arguments[1]) else {
    fail("usage: module-list-generator catalog|host MANIFEST OUTPUT")
}
let manifestPath = arguments[2]
guard let data = FileManager.default.contents(atPath: manifestPath) else { fail("cannot read \(manifestPath)") }
let manifest: Manifest
do {
    manifest = try JSONDecoder().decode(Manifest.self, from: data)
} catch {
    fail("\(manifestPath) is not a module list: \(error)")
}
var seen = Set<String>()
for entry in manifest.modules {
    let scalars = Array(entry.id.unicodeScalars)
    let valid = (2...16).contains(scalars.count) && ("a"..."z").contains(scalars[0])
        && scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    guard valid else { fail("module id '\(entry.id)' in \(manifestPath): use 2–16 lowercase letters or digits, starting with a letter") }
    guard seen.insert(entry.id).inserted else { fail("module id '\(entry.id)' appears twice in \(manifestPath)") }
    guard entry.name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) }), entry.name.first?.isUppercase == true else {
        fail("module name '\(entry.name)' in \(manifestPath): use the target name, e.g. TrackYourTinnitus")
    }
}

var source = "// Generated from Modules/modules.json by the module-list plugin at build time; do not edit.\n"
switch arguments[1] {
case "catalog":
    source += "extension ModuleCatalog {\n    /// Every module UNITI knows, in the order of Modules/modules.json.\n"
    source += "    public static let all: [KnownModule] = [\n"
    for entry in manifest.modules {
        source += "        KnownModule(id: .\(entry.id), name: \(swiftString(entry.name)), programName: \(swiftString(entry.program))),\n"
    }
    source += "    ]\n}\n\nextension ModuleID {\n"
    for entry in manifest.modules {
        source += "    /// \(entry.name).\n    public static let \(entry.id) = ModuleID(known: \(swiftString(entry.id)))\n"
    }
    source += "}\n"
case "host":
    for entry in manifest.modules { source += "import \(entry.name)\n" }
    source += "import UNITICore\n\n/// The integrated host's modules, in the order of Modules/modules.json.\n"
    source += "let featureModules: [any UNITIModule] = [\n"
    for entry in manifest.modules { source += "    \(entry.name)Module(),\n" }
    source += "]\n"
default:
    fail("unknown output kind \(arguments[1])")
}
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[3]), options: .atomic)
} catch {
    fail("cannot write \(arguments[3]): \(error)")
}
