import Foundation

/// Keys the server processes share through the store (the portal's CSRF signing key): made once,
/// by whichever process asks first, and from then on the same for every process on the database
/// and across restarts.
///
/// The table `server_secrets` (SQLite `v6-server-secrets`, PostgreSQL `pg2-portal`).
extension ServerStore {
    /// The secret named `name`; when there is none yet, `make()` is stored (made at `now`) and
    /// returned. Two processes asking at once both get the one that was stored first.
    func secret(named name: String, now: Date, orStore make: @Sendable () -> Data) async throws -> Data {
        if let found = try await storedSecret(name) { return found }
        // The first process to insert wins; one racing it reads the winner's value back.
        try await database.execute("""
            INSERT INTO server_secrets (name, value, created_at) VALUES (\(name), \(make()), \(now))
            ON CONFLICT (name) DO NOTHING
            """)
        guard let stored = try await storedSecret(name) else {
            throw StoreCorruption("server secret \(name) vanished right after it was stored")
        }
        return stored
    }

    private func storedSecret(_ name: String) async throws -> Data? {
        try await database.row("SELECT value FROM server_secrets WHERE name = \(name)")?["value"]
    }
}
