// Turns UNITI's data files into Swift source at build time (the GeneratedSourcesPlugin):
//
//   uniti-codegen catalog MANIFEST OUTPUT     Modules/modules.json → the known modules, for UNITIProtocol
//   uniti-codegen host MANIFEST OUTPUT        Modules/modules.json → the integrated host's module instances
//   uniti-codegen server MANIFEST OUTPUT PART…  the study server's module parts (targets <name>Server)
//   uniti-codegen strings STRINGS OUTPUT      Localization/Strings/<lang>/*.json → the string tables
//   uniti-codegen resources FOLDER OUTPUT ORIGIN  a target's Resources folder → its files (`compiledResources`)
//
// The JSON files stay the source people edit; compiling them in spares every start of the
// program from finding, reading and parsing them. A malformed file stops the build with one
// line naming what is wrong.
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
    FileHandle.standardError.write(Data("uniti-codegen: \(message)\n".utf8))
    exit(1)
}

func swiftString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        default:
            if scalar.value < 0x20 { out += "\\u{\(String(scalar.value, radix: 16))}" } else { out.unicodeScalars.append(scalar) }
        }
    }
    return out + "\""
}

func write(_ source: String, to path: String) -> Never {
    do {
        try Data(source.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        fail("cannot write \(path): \(error)")
    }
    exit(0)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, ["catalog", "host", "strings", "server", "resources"].contains(arguments[1]),
      arguments.count == 4 || arguments[1] == "server" || (arguments[1] == "resources" && arguments.count == 5) else {
    fail("usage: uniti-codegen catalog|host|strings INPUT OUTPUT, server MANIFEST OUTPUT PART…, or resources FOLDER OUTPUT ORIGIN")
}

if arguments[1] == "resources" {
    // Every file under the folder, compiled into the target as `compiledResources` (see
    // UNITIResources' CompiledResources), each as a string literal.
    let folder = arguments[2], origin = arguments[4]
    let paths = ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).sorted().filter { path in
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder) && !isFolder.boolValue
            && !path.split(separator: "/").contains { $0.hasPrefix(".") }
    }
    guard !paths.isEmpty else { fail("\(folder) holds no files to compile in") }
    var source = "// Generated from \(origin) by uniti-codegen at build time; do not edit.\nimport UNITIResources\n\n"
    source += "/// The files of `\(origin)`, compiled into the program.\n"
    source += "let compiledResources = CompiledResources(origin: \(swiftString(origin)), files: [\n"
    for path in paths {
        guard let data = FileManager.default.contents(atPath: folder + "/" + path) else { fail("cannot read \(folder)/\(path)") }
        // Text only: every resource today is (JSON, mustache, CSS, JS, YAML); a picture or a
        // recording would be the first to need bytes, and a reason to weigh the binary's size.
        guard let text = String(data: data, encoding: .utf8) else { fail("\(folder)/\(path) is not UTF-8 text; only text is compiled in") }
        source += "    .init(path: \(swiftString(path)), text: \(swiftString(text))),\n"
    }
    source += "])\n"
    write(source, to: arguments[3])
}

if arguments[1] == "strings" {
    // One folder per language, one flat JSON object of key → text per file; merged per language.
    let folder = arguments[2]
    let languages = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    var source = "// Generated from Localization/Strings by uniti-codegen at build time; do not edit.\n"
    source += "extension StringTables {\n"
    var cases: [String] = []
    for language in languages {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + language)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        guard !files.isEmpty else { continue }
        var table: [String: String] = [:]
        for file in files {
            let path = folder + "/" + language + "/" + file
            guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
            let object: [String: String]
            do {
                object = try JSONDecoder().decode([String: String].self, from: data)
            } catch {
                fail("\(path) is not a table of texts: \(error)")
            }
            for (key, value) in object {
                if table[key] != nil { fail("the key \(key) appears twice in \(language) (again in \(file))") }
                table[key] = value
            }
        }
        // Two parallel arrays sorted by key: built without hashing anything, searched by halves.
        let name = language.replacingOccurrences(of: "-", with: "_")
        let keys = table.keys.sorted()
        cases.append("        case \(swiftString(language)): return (keys_\(name), texts_\(name))")
        source += "    static let keys_\(name): [String] = [\n"
        for key in keys { source += "        \(swiftString(key)),\n" }
        source += "    ]\n    static let texts_\(name): [String] = [\n"
        for key in keys { source += "        \(swiftString(table[key]!)),\n" }
        source += "    ]\n"
    }
    let codes = languages.filter { language in cases.contains { $0.contains("case \(swiftString(language)):") } }
    source += "\n    /// The language codes with a table, sorted (`de`, `en`, …).\n"
    source += "    public static let languages: [String] = [\(codes.map(swiftString).joined(separator: ", "))]\n"
    source += "\n    /// The compiled table of a language code (keys sorted, texts in the same order); nil for a\n"
    source += "    /// language without one.\n"
    source += "    static func compiled(_ code: String) -> (keys: [String], texts: [String])? {\n        switch code {\n"
    source += cases.joined(separator: "\n") + "\n        default: return nil\n        }\n    }\n}\n"
    write(source, to: arguments[3])
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

var source = "// Generated from Modules/modules.json by uniti-codegen at build time; do not edit.\n"
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
case "server":
    // In the order of the module list, whatever order the parts were named in.
    let parts = Set(arguments.dropFirst(4))
    let named = manifest.modules.filter { parts.contains("\($0.name)Server") }
    for name in parts where !manifest.modules.contains(where: { "\($0.name)Server" == name }) {
        fail("\(name) is no module's server part (Modules/<name>/Server of a module in \(manifestPath))")
    }
    source += named.map { "import \($0.name)Server\n" }.joined() + "import UNITIServer\n\n"
    source += "/// The study server's module parts, in the order of Modules/modules.json.\n"
    source += "let serverModuleParts = ServerModules([\n"
    for entry in named { source += "    \(entry.name)ServerPart(),\n" }
    source += "])\n"
default:
    fail("unknown output kind \(arguments[1])")
}
write(source, to: arguments[3])
