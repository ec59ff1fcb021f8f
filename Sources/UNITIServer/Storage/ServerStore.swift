import Foundation
import Metrics
import Synchronization
import UNITIProtocol

/// Everything the study server keeps, on SQLite (one file, nothing to install: the default) or
/// PostgreSQL (several server processes on one database). Each concern is written once, in its
/// own folder under `Storage/`, as an extension of this class running its SQL on the kit's
/// ``StoreDatabase`` (`Storage/Kit`), so the two stores cannot drift apart:
/// - `Accounts`: accounts, mailed tokens, sessions
/// - `Studies`: studies, memberships (with the time of joining), join requests
/// - `Questionnaires`: questionnaire versions, the module presenting each, deactivation
/// - `Sheets`: answer sheets (their intake) and the study export
/// - `Comparison`: the comparison with all users, from the totals and the answers
/// - `Records`: the generic per-user module records
/// - `ModuleResources`: module resources such as a sound catalogue
/// - `Secrets`: keys shared by every server process (the portal's CSRF key)
/// - `Throttles`: the throttles' counts (logins, registration and reset requests, reset mails,
///   study passwords per study), shared by every server process
/// - `PersonalData`: everything kept about one person, for their download
/// - `Consent`: every consent text a study has had, and who agreed to which version when
/// - `Erasure`: deleting a person (or their answers to one study) for real, rows and bytes
/// The schema has one list of steps per engine (`Storage/Migrations`), followed by the steps of
/// the module parts (``ServerModulePart/migrations``); a module part's own store code is an
/// extension of this class in its folder, reading through ``rows(_:)``.
///
/// Every method commits before it returns: a route answers only after its write is durable, so a
/// shutdown never loses an acknowledged write. Methods that take a `userId` only ever touch that
/// user's rows — isolation between participants is enforced here, not only in the routes.
public final class ServerStore: Sendable {
    let database: any StoreDatabase
    /// Decoded questionnaire versions by `id#version`. A stored version never changes (a changed
    /// definition needs a higher version), so a version once read is kept: every sheet upload
    /// needs its questionnaire, and decoding the definition each time was a large part of it.
    let questionnaireCache = Mutex<[String: QuestionnaireDocument]>([:])
    /// On SQLite, sheet uploads arriving concurrently share transactions (``GroupCommit``); nil
    /// on PostgreSQL, where each upload has its own (``storeSheets(userId:sheets:receivedAt:)``).
    let sheetWrites: GroupCommit<SheetUpload, StoredBatch>?
    /// The module parts the server runs with: their schema steps are part of this store's, and
    /// they decide which module presents a study's own questionnaires.
    public let modules: ServerModules

    /// Opens (creating if needed) the SQLite database at `path` and brings its schema, with the
    /// modules' steps, up to date.
    /// `metrics` receives the store's own measures (``ServerMetrics``: the database waits).
    public convenience init(sqlitePath path: String, modules: ServerModules = .installed,
                            metrics: any MetricsFactory = MetricsSystem.factory) throws {
        self.init(database: try SQLiteDatabase(path: path, migrator: SQLiteMigrations.migrator(modules: modules), metrics: metrics),
                  modules: modules)
    }

    /// Connects to PostgreSQL (the pool opens connections as needed) and brings the schema, with
    /// the modules' steps, up to date (a step run now recorded as applied at `now`). Throws when
    /// the database cannot be reached or was written by a newer server.
    public static func postgres(_ location: StoreLocation.PostgresLocation, maximumConnections: Int = 20,
                                now: Date, modules: ServerModules = .installed,
                                metrics: any MetricsFactory = MetricsSystem.factory) async throws -> ServerStore {
        let database = try await PostgreSQLDatabase(location: location, maximumConnections: maximumConnections,
                                                    metrics: metrics) { client, logger in
            try await PostgreSQLMigrations.migrate(client, logger: logger, now: now, modules: modules)
        }
        return ServerStore(database: database, modules: modules)
    }

    init(database: any StoreDatabase, modules: ServerModules) {
        self.database = database
        self.modules = modules
        sheetWrites = (database as? SQLiteDatabase).map { GroupCommit(writer: $0) { db, upload in try Self.store(db, upload) } }
    }

    /// The rows of one read, for a module part's store code (`Modules/<Name>/Server`), which
    /// writes its SQL with the same kit (``SQL``) and so runs on both stores.
    package func rows(_ sql: SQL) async throws -> [SQLRow] {
        try await database.rows(sql)
    }

    /// Runs `body` in one transaction, handing it a store whose every method runs inside it
    /// (``JoinedTransaction``): what the body changes commits together or not at all. For a
    /// change and the line that records it (``StudyAdministration``); the body must use only the
    /// store it is given (on SQLite a call on this store would wait for the transaction's own end).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (ServerStore) async throws -> T) async throws -> T {
        let modules = self.modules
        return try await database.transaction { db in
            try await body(ServerStore(database: JoinedTransaction(executor: db), modules: modules))
        }
    }

    /// Ends the connections (the PostgreSQL pool); a command calls it when it is done.
    public func close() async {
        await database.close()
    }
}

/// Conflicts the store reports instead of a raw constraint failure.
public enum StoreConflict: Error, Sendable, Equatable {
    case usernameTaken
    case emailTaken
    case studyExists
}

// The documents the store keeps as JSON text (sorted keys), which the row coders read and
// write so (``SQLJSONColumn``): texts in several languages, free JSON, definitions and sheets.
extension LocalizedText: SQLJSONColumn {}
extension JSONValue: SQLJSONColumn {}
extension QuestionnaireDefinition: SQLJSONColumn {}
extension AnswerSheet: SQLJSONColumn {}
