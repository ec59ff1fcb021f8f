import Foundation
import Hummingbird
import Synchronization
import UNITIProtocol
import UNITIResources

/// What a feature module adds to the study server: its folder `Modules/<Name>/Server` holds one
/// type conforming to this protocol (and whatever that type needs), the target `<Name>Server`
/// that Package.swift makes for it, and the code generator lists it for `uniti-server`, as the
/// client's modules are listed for `uniti`. The server's own code (`Sources/UNITIServer`) names
/// no module: it asks the installed parts (``ServerModules``).
///
/// A part opts into each further capability by conforming to its protocol, as the client's
/// modules do (`Documentation/architecture.md`, "Capabilities"); none has a default, so a
/// misspelt requirement fails to compile instead of silently adding nothing:
/// ``StudyQuestionnairePresenting``, ``ServerSchemaExtending``, ``APIRoutesProviding``,
/// ``PersonalDataHolding``, ``PortalPagesProviding``, ``StudySwitchesProviding``,
/// ``StratificationMeasuring``, ``QuestionnairePersonalizing``.
package protocol ServerModulePart: Sendable {
    /// The module this part belongs to (its id in `Modules/modules.json`).
    var id: ModuleID { get }
}

/// The module presents the questionnaires a study defines and the program does not bundle
/// (``QuestionnaireModules``). At most one installed module says so; without one, the shell
/// presents them.
package protocol StudyQuestionnairePresenting: ServerModulePart {}

/// The module has schema steps of its own.
package protocol ServerSchemaExtending: ServerModulePart {
    /// Its schema steps, for both stores, in the order they run (after the server's own). Each
    /// is recorded as `<module id>-<identifier>`; as with the server's steps, never rename,
    /// reorder or edit one that shipped.
    var migrations: [ServerMigration] { get }
}

/// The module has routes of its own in the authenticated API.
package protocol APIRoutesProviding: ServerModulePart {
    /// Adds the routes to the authenticated API (`/api/v1`; the caller is ``APIContext/user``).
    func registerAPI(on api: RouterGroup<APIContext>, environment: ServerEnvironment)
    /// The routes' description, joined into the OpenAPI document the server serves
    /// (``OpenAPIDocument``): a route a module adds is documented by the module.
    var apiDocumentation: APIDocumentation { get }
}

/// A module's part of the OpenAPI document, as YAML text written for its place in the server's
/// document (`Sources/UNITIServer/Resources/openapi.yaml`): `paths` holds entries of `paths:`
/// (indented two spaces, e.g. `  /rewards:`), `schemas` entries of `components: schemas:`
/// (indented four). ``OpenAPIDocument/joined(_:with:)`` puts them at the end of each.
package struct APIDocumentation: Sendable {
    package var paths: String
    package var schemas: String

    package init(paths: String, schemas: String = "") {
        self.paths = paths
        self.schemas = schemas
    }
}

/// The module adds switches to a study's settings (e.g. whether members get Track Your Hearing's
/// rewards): each is off until a coordinator turns it on, in the console's settings form or with
/// `study update ID --NAME on|off`. The switches that are on are kept by the server
/// (``ServerStore/studySwitches(studyId:)``, the table `study_module_switches`); a change is
/// audited by the switch's name like any other setting.
package protocol StudySwitchesProviding: ServerModulePart {
    var studySwitches: [StudySwitch] { get }
}

/// One on/off setting a module adds to studies.
package struct StudySwitch: Sendable, Hashable {
    /// The module that reads it.
    package var module: ModuleID
    /// Its name: the command line's option (`--rewards`), the console form's field
    /// (`switch-rewards`), the audit trail's field and the key in `study show --json`. Lower-case
    /// letters and '-'; unique among the installed modules' switches and apart from the study's
    /// own settings (a test checks both).
    package var name: String
    /// What the console's checkbox says: a key of the console's string tables
    /// (`Localization/Strings/<language>/console.json`), as ``PortalLink`` names its words.
    package var labelKey: String
    /// What `study update --help` says of it (English, like the command line).
    package var help: String

    package init(module: ModuleID, name: String, labelKey: String, help: String) {
        self.module = module
        self.name = name
        self.labelKey = labelKey
        self.help = help
    }
}

/// The module computes measures of a person from its own data that a randomised study may
/// stratify by (issue 48: `tn`'s better-ear pure-tone average gives a hearing-aid indication).
package protocol StratificationMeasuring: ServerModulePart {
    var stratificationMeasures: [StratificationMeasure] { get }
}

/// The module fills in what one of its questionnaires says of the person (Track Your Tinnitus's
/// `{worstSymptom}`), for the portal, as the module does on the device.
package protocol QuestionnairePersonalizing: ServerModulePart {
    /// `definition` as `userId` reads it; unchanged when it is not one the module fills in.
    func personalized(_ definition: QuestionnaireDefinition, userId: Int64, store: ServerStore) async throws -> QuestionnaireDefinition
}

/// One measure a module computes for a person (nil: not known yet, e.g. no audiogram).
package struct StratificationMeasure: Sendable {
    /// `<module>.<name>`, as a trial design's factor names it (`tn.better-ear-pta`).
    package var name: String
    /// What it is, with its unit, in the console's languages: the trial tab shows it.
    package var text: LocalizedText
    package var value: @Sendable (_ store: ServerStore, _ userId: Int64) async throws -> Double?

    package init(name: String, text: LocalizedText, value: @escaping @Sendable (ServerStore, Int64) async throws -> Double?) {
        self.name = name
        self.text = text
        self.value = value
    }
}

/// The module keeps or computes something about a person beyond the server's own tables.
package protocol PersonalDataHolding: ServerModulePart {
    /// Members added to the person's data download (``PersonalDataExport``), e.g. `rewards`.
    func personalData(userId: Int64, environment: ServerEnvironment) async throws -> [String: JSONValue]
    /// The module's own tables that hold people's rows by a `user_id` column: deleted with the
    /// person's account (``ServerStore/deleteAccount(userId:now:recording:)``). A part whose
    /// migrations add such a table must list it here (a test reads the schema).
    var personalTables: [String] { get }
}

/// The module has pages in the participant portal.
package protocol PortalPagesProviding: ServerModulePart {
    /// Adds the pages to the portal's signed-in group (the person is
    /// ``ParticipantContext/participant``; every form's CSRF token is checked before the
    /// handler); `portal` renders them (``PortalRoutes/page(_:_:status:notice:error:)``).
    func registerPortal(on signedIn: RouterGroup<ParticipantContext>, portal: PortalRoutes)
    /// The pages' templates (`*.mustache`, compiled in from the module's `Resources/Portal`),
    /// which may use the server's (`{{<layout}}`, `{{> pager}}`).
    var portalTemplates: CompiledResources { get }
    /// The module's entries in the portal's navigation, after the questionnaires.
    var portalNavigation: [PortalLink] { get }
    /// Downloads the module offers on the portal's data page, after the data download.
    var portalDownloads: [PortalLink] { get }
}

/// A link a module adds to the portal: where it goes, its element id, and its words from the
/// portal's string tables (``PortalText``).
package struct PortalLink: Sendable, Equatable {
    package var href: String
    package var id: String
    package var labelKey: String
    /// A sentence shown before the link (the data page explains each download); nil for none.
    package var explanationKey: String?

    package init(href: String, id: String, labelKey: String, explanationKey: String? = nil) {
        self.href = href
        self.id = id
        self.labelKey = labelKey
        self.explanationKey = explanationKey
    }
}

/// One schema step of a module, written for each store (the SQL differs in types and defaults).
/// Statements are separated by a `;` at the end of a line, as in the server's PostgreSQL steps.
package struct ServerMigration: Sendable {
    package var identifier: String
    package var sqlite: String
    package var postgres: String

    package init(_ identifier: String, sqlite: String, postgres: String) {
        self.identifier = identifier
        self.sqlite = sqlite
        self.postgres = postgres
    }
}

/// The module parts a server runs with: those the program was built with (generated from
/// `Modules/modules.json` into `uniti-server`), handed to the store when it opens. Tests pass
/// the list they need; the commands use ``installed``, set once by the program's `main`.
public struct ServerModules: Sendable {
    package let parts: [any ServerModulePart]

    package init(_ parts: [any ServerModulePart]) {
        self.parts = parts
    }

    /// No module parts: the server with only what every study has.
    public static let none = ServerModules([])

    /// The module that presents study questionnaires (see ``ServerModulePart/presentsStudyQuestionnaires``).
    /// The installed parts that have the capability `P` (e.g. `parts(PortalPagesProviding.self)`).
    package func parts<P>(_ capability: P.Type) -> [P] {
        parts.compactMap { $0 as? P }
    }

    var studyQuestionnaireModule: ModuleID {
        parts.first(where: { $0 is any StudyQuestionnairePresenting })?.id ?? .shell
    }

    var migrations: [(identifier: String, step: ServerMigration)] {
        parts(ServerSchemaExtending.self).flatMap { part in part.migrations.map { ("\(part.id.rawValue)-\($0.identifier)", $0) } }
    }

    /// The installed modules' study switches (``StudySwitchesProviding``), in the parts' order.
    package var studySwitches: [StudySwitch] {
        parts(StudySwitchesProviding.self).flatMap(\.studySwitches)
    }

    /// The switch of this name, when an installed module adds one.
    package func studySwitch(named name: String) -> StudySwitch? {
        studySwitches.first { $0.name == name }
    }

    /// The installed modules' stratification measures (``StratificationMeasuring``).
    package var stratificationMeasures: [StratificationMeasure] {
        parts(StratificationMeasuring.self).flatMap(\.stratificationMeasures)
    }

    /// `definition` as `userId` reads it, filled in by every installed module that personalizes
    /// questionnaires (``QuestionnairePersonalizing``).
    package func personalized(_ definition: QuestionnaireDefinition, userId: Int64, store: ServerStore) async throws -> QuestionnaireDefinition {
        var definition = definition
        for part in parts(QuestionnairePersonalizing.self) {
            definition = try await part.personalized(definition, userId: userId, store: store)
        }
        return definition
    }

    /// The parts' tables with people's rows (``PersonalDataHolding/personalTables``).
    var personalTables: [String] {
        parts(PersonalDataHolding.self).flatMap(\.personalTables)
    }

    private static let program = Mutex(ServerModules.none)

    /// The parts of this program (none until ``bootstrap(_:)``): what the commands open the
    /// store with. Like swift-log's `LoggingSystem.bootstrap`, set once before anything runs.
    public static var installed: ServerModules { program.withLock { $0 } }

    /// Sets ``installed``; the program's `main` calls it first.
    public static func bootstrap(_ modules: ServerModules) {
        program.withLock { $0 = modules }
    }
}
