import Foundation

/// `uniti-server backup` and `restore` on either store (``SQLiteBackup``, ``PostgreSQLBackup``):
/// what they share is here. A backup is written under a temporary name beside its destination
/// (``PrivateFiles/temporaryPath(beside:)``), private (0600) from the start, and moved into place
/// only once complete and verified, so the destination is always either the previous backup or a
/// whole new one; a nightly timer may reuse one name.
enum StoreBackup {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Backs the store up to `destination`; returns what the copy holds and how it was verified.
    static func backup(_ location: StoreLocation, to destination: String, postgresTools: PostgreSQLBackup.Tools) async throws
        -> (contents: StoreContents, verified: String) {
        let temporary = PrivateFiles.temporaryPath(beside: destination)
        do {
            let contents: StoreContents
            let verified: String
            switch location {
            case .sqlite(let path):
                contents = try SQLiteBackup.backup(path: path, to: temporary)
                verified = "PRAGMA integrity_check: ok"
            case .postgres(let postgres):
                contents = try await PostgreSQLBackup.backup(postgres, to: temporary, tools: postgresTools)
                verified = "pg_restore --list: readable"
            }
            try PrivateFiles.moveIntoPlace(temporary, destination)
            return (contents, verified)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// Restores `file` into the store (refusing one that holds data), then opens it, which brings
    /// the schema of an older backup up to date, and returns what it holds.
    static func restore(_ file: String, into location: StoreLocation, now: Date, postgresTools: PostgreSQLBackup.Tools) async throws -> StoreContents {
        guard FileManager.default.isReadableFile(atPath: file) else { throw Failure("cannot read the backup \(file)") }
        switch location {
        case .sqlite(let path): try SQLiteBackup.restore(file, into: path)
        case .postgres(let postgres): try await PostgreSQLBackup.restore(file, into: postgres, tools: postgresTools)
        }
        let store = try await location.open(now: now)
        do {
            let contents = try await store.contents()
            await store.close()
            return contents
        } catch {
            await store.close()
            throw error
        }
    }

    /// One line naming what a restore's target holds, unless it holds nothing.
    static func refuseUnlessEmpty(_ found: StoreContents, path: String) throws {
        guard found.isEmpty else {
            throw Failure("\(path) already holds data (\(found)): restore only into an empty database")
        }
    }
}

extension ServerStore {
    /// What the store holds (``StoreContents``).
    func contents() async throws -> StoreContents {
        try await StoreContents.read(database)
    }
}
