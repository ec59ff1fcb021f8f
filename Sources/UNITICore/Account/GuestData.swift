import GRDB

/// What a person recorded without an account (guest use, Shades Of Noise thesis FA20: the app
/// also works without log-in data).
///
/// Guest data lives where every other change lives: in the module tables, with its upload
/// waiting in the outbox. As long as no account owns the data directory, those queued uploads
/// belong to nobody; the first login decides whether they go to that account
/// (``AccountService/login(_:password:attachGuestData:)``).
public struct GuestData: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// Entries waiting for an account: every queued upload while no account owns the directory.
    public func queuedEntries() throws -> Int {
        guard try SettingsStore(database: database).string(AccountService.ownerKey) == nil else { return 0 }
        return try database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_outbox") ?? 0
        }
    }
}
