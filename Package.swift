// swift-tools-version: 6.1
//
// UNITI: five "Track Your ..." research apps harmonized into one host shell.
// The package trait INTEGRATED (on by default) selects the integrated build; building with
// `--disable-default-traits` yields the standalone single-module programs (see README).
import Foundation
import PackageDescription

/// The feature modules, from the one list `Modules/modules.json` (see its "about"): each is a
/// library target in Modules/<name>/Module, a standalone program in Modules/<name>/Standalone,
/// and a test target when Tests/<name>Tests exists.
struct FeatureModule: Decodable {
    let id: String
    let name: String
    let program: String
}
struct ModuleList: Decodable {
    let modules: [FeatureModule]
}
let packageDirectory = Context.packageDirectory
let featureModules: [FeatureModule] = {
    let path = packageDirectory + "/Modules/modules.json"
    guard let data = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
    do {
        return try JSONDecoder().decode(ModuleList.self, from: data).modules
    } catch {
        fatalError("\(path) is not a module list: \(error)")
    }
}()

/// Modules with a part on the study server (`Modules/<name>/Server`, target `<name>Server`): the
/// server lists them from here (the GeneratedSourcesPlugin), so it names no module itself.
let modulesWithServer = featureModules.filter {
    FileManager.default.fileExists(atPath: packageDirectory + "/Modules/\($0.name)/Server")
}
let serverParts: [Target.Dependency] = modulesWithServer.map { .target(name: "\($0.name)Server") }
/// Modules with a part shared by the module and its server part (`Modules/<name>/Shared`,
/// target `<name>Shared`: Foundation and UNITIProtocol only), e.g. record types both read or
/// Track Your Tinnitus's worst-symptom phrase.
let modulesWithShared = featureModules.filter {
    FileManager.default.fileExists(atPath: packageDirectory + "/Modules/\($0.name)/Shared")
}
let sharedParts: [Target.Dependency] = modulesWithShared.map { .target(name: "\($0.name)Shared") }

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")

var targets: [Target] = [
    .systemLibrary(
        name: "CLibEdit",
        path: "Sources/CLibEdit",
        pkgConfig: "libedit",
        providers: [.apt(["libedit-dev"])]
    ),
    .systemLibrary(
        name: "CALSA",
        path: "Sources/CALSA",
        pkgConfig: "alsa",
        providers: [.apt(["libasound2-dev"])]
    ),
    // QR codes for the staff console's TOTP enrolment (UNITIServer).
    .systemLibrary(
        name: "CQREncode",
        path: "Sources/CQREncode",
        pkgConfig: "libqrencode",
        providers: [.apt(["libqrencode-dev"])]
    ),
    .target(
        name: "CCurlLoader",
        path: "Sources/CCurlLoader",
        linkerSettings: [.linkedLibrary("dl")]
    ),
    // Turns the module list and the string tables into Swift at build time (the plugin's tool).
    .executableTarget(
        name: "uniti-codegen",
        path: "Sources/uniti-codegen"
    ),
    .plugin(
        name: "GeneratedSourcesPlugin",
        capability: .buildTool(),
        dependencies: ["uniti-codegen"],
        path: "Plugins/GeneratedSourcesPlugin"
    ),
    .target(
        name: "UNITIProtocol",
        path: "Sources/UNITIProtocol",
        plugins: ["GeneratedSourcesPlugin"]
    ),
    // What a target's compiled-in resources are (the plugin writes each target's files as one).
    .target(
        name: "UNITIResources",
        path: "Sources/UNITIResources"
    ),
    // The string tables: JSON in Localization/Strings, compiled into the binary by the plugin.
    .target(
        name: "UNITILocalization",
        path: "Localization",
        exclude: ["Strings"],
        plugins: ["GeneratedSourcesPlugin"]
    ),
    // The default study, questionnaires and sound catalogue, compiled in from Configurations/Resources.
    .target(
        name: "UNITIConfigurations",
        dependencies: ["UNITIResources"],
        path: "Configurations",
        exclude: ["Resources"],
        plugins: ["GeneratedSourcesPlugin"]
    ),
    // The shell's words: the languages, the string-table lookup, and how a questionnaire reads
    // as text (prompts, hints, choices, SAM pictograms). Pure text, so the study server's console
    // shows in its preview exactly the lines the shell prints, from the same code.
    .target(
        name: "UNITIText",
        dependencies: [
            "UNITIProtocol", "UNITILocalization",
            // Consent texts are Markdown: Ink turns them into HTML, which UNITIText then keeps to
            // the tags Markdown makes (the portal and console) or reads as plain text (the shell).
            .product(name: "Ink", package: "Ink"),
        ],
        path: "Sources/UNITIText"
    ),
    .target(
        name: "UNITICore",
        dependencies: ["UNITIText", "UNITIProtocol", "UNITILocalization", "UNITIConfigurations", "CALSA", "CCurlLoader", grdb, argumentParser],
        path: "Sources/UNITICore"
    ),
    .target(
        name: "UNITIHost",
        dependencies: ["UNITICore", "CLibEdit", argumentParser],
        path: "Sources/UNITIHost"
    ),
    .executableTarget(
        name: "uniti",
        dependencies: ["UNITIHost", "UNITICore"] + featureModules.map { .target(name: $0.name) },
        path: "Sources/uniti",
        plugins: ["GeneratedSourcesPlugin"]
    ),
    // SMTP for the study server through libcurl (a C shim: curl_easy_setopt is variadic).
    .target(
        name: "CCurlSMTP",
        path: "Sources/CCurlSMTP",
        linkerSettings: [.linkedLibrary("curl")]
    ),
    // The study server: never depends on UNITICore or a module (the string tables and the shell's
    // text are their own targets, so the portal and the console share them without the core), only
    // on what crosses the wire and on the bundled configuration (which questionnaire ids ship with the program, and so
    // which module presents them).
    .target(
        name: "UNITIServer",
        dependencies: [
            "UNITIProtocol", "UNITIText", "UNITIConfigurations", "UNITILocalization", "UNITIResources", "CCurlSMTP", "CQREncode", hummingbird, grdb, argumentParser,
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            // The API's authentication as middleware: the identity on the request context.
            .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            .product(name: "Crypto", package: "swift-crypto"),
            // The participant portal's pages: logic-less templates that escape `{{ }}` by default.
            .product(name: "Mustache", package: "swift-mustache"),
            // The PostgreSQL store (several server processes on one database): the Swift Server
            // Work Group's client, with its own connection pool; SQL is written by hand as for SQLite.
            .product(name: "PostgresNIO", package: "postgres-nio"),
            // What the server imports of the packages Hummingbird and postgres-nio are built on.
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            // NIOThreadPool: where the SMTP sender (libcurl, which blocks) runs, off Swift's shared pool.
            .product(name: "NIOPosix", package: "swift-nio"),
            // The operator's `/metrics` (Prometheus text format) on its own listener: swift-metrics
            // is what Hummingbird's MetricsMiddleware and the stores record through.
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            // The console's one download of a study's files (data, codebooks, syntax, README).
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ],
        path: "Sources/UNITIServer",
        // The OpenAPI document and the portal's templates, style sheet and script, compiled in.
        exclude: ["Resources"],
        plugins: ["GeneratedSourcesPlugin"]
    ),
    // The program: the server and the module parts it was built with (listed by the plugin).
    .executableTarget(
        name: "uniti-server",
        dependencies: ["UNITIServer"] + serverParts,
        path: "Sources/uniti-server",
        plugins: ["GeneratedSourcesPlugin"]
    ),
    // The test harness every module's tests share (temporary data directory, fixed clock,
    // seeded randomness, captured console, either kind of program, the built programs and a
    // real uniti-server on loopback).
    .target(
        name: "UNITITesting",
        dependencies: ["UNITICore", "UNITIHost", "UNITIProtocol", grdb],
        path: "Sources/UNITITesting"
    ),
    .testTarget(
        name: "UNITIServerTests",
        dependencies: [
            "UNITIServer", "UNITIProtocol", "UNITIResources", "UNITITesting", hummingbird, grdb, argumentParser,
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ] + serverParts + sharedParts,
        path: "Tests/UNITIServerTests",
        plugins: ["GeneratedSourcesPlugin"]
    ),
    .testTarget(
        name: "UNITICoreTests",
        dependencies: ["UNITICore", "UNITIProtocol", "UNITITesting", argumentParser],
        path: "Tests/UNITICoreTests",
        exclude: ["Fixtures"]
    ),
    .testTarget(
        name: "UNITIHostTests",
        dependencies: ["UNITIHost", "UNITICore", "UNITITesting"] + featureModules.map { .target(name: $0.name) },
        path: "Tests/UNITIHostTests",
        plugins: ["GeneratedSourcesPlugin"]
    ),
    .testTarget(
        name: "EndToEndTests",
        dependencies: ["UNITICore", "UNITITesting"],
        path: "Tests/EndToEndTests"
    ),
]

/// Modules that have unit tests of their own, in Tests/<Name>Tests.
let modulesWithTests = featureModules.map(\.name).filter {
    FileManager.default.fileExists(atPath: packageDirectory + "/Tests/\($0)Tests")
}
for name in modulesWithTests {
    targets.append(.testTarget(
        name: "\(name)Tests",
        dependencies: [.target(name: name), "UNITICore", "UNITITesting"]
            + modulesWithShared.filter { $0.name == name }.map { .target(name: "\($0.name)Shared") },
        path: "Tests/\(name)Tests"
    ))
}

for module in featureModules {
    let shared: [Target.Dependency] = modulesWithShared.contains(where: { $0.id == module.id }) ? [.target(name: "\(module.name)Shared")] : []
    if !shared.isEmpty {
        targets.append(.target(
            name: "\(module.name)Shared",
            dependencies: ["UNITIProtocol"],
            path: "Modules/\(module.name)/Shared"
        ))
    }
    targets.append(.target(
        name: module.name,
        dependencies: ["UNITICore", "UNITIProtocol", "UNITIConfigurations", grdb, argumentParser] + shared,
        path: "Modules/\(module.name)/Module"
    ))
    if modulesWithServer.contains(where: { $0.id == module.id }) {
        // A part's own files (portal templates) in Modules/<name>/Server/Resources, compiled in.
        let hasResources = FileManager.default.fileExists(atPath: packageDirectory + "/Modules/\(module.name)/Server/Resources")
        targets.append(.target(
            name: "\(module.name)Server",
            dependencies: ["UNITIServer", "UNITIProtocol", "UNITIResources", hummingbird] + shared,
            path: "Modules/\(module.name)/Server",
            exclude: hasResources ? ["Resources"] : [],
            plugins: hasResources ? ["GeneratedSourcesPlugin"] : []
        ))
    }
    targets.append(.executableTarget(
        name: module.program,
        dependencies: ["UNITIHost", .target(name: module.name)],
        path: "Modules/\(module.name)/Standalone"
    ))
}

let package = Package(
    name: "UNITI",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "uniti", targets: ["uniti"]),
        .executable(name: "uniti-server", targets: ["uniti-server"]),
    ] + featureModules.map { .executable(name: $0.program, targets: [$0.program]) },
    traits: [
        .trait(
            name: "INTEGRATED",
            description: "Build the integrated host `uniti` (all modules in one shell). Disable it to build the standalone single-module programs."
        ),
        .default(enabledTraits: ["INTEGRATED"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/JohnSundell/Ink", .upToNextMinor(from: "0.6.0")),
        .package(url: "https://github.com/weichsel/ZIPFoundation", .upToNextMinor(from: "0.9.20")),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
