import Foundation
import NIOCore
import PostgresNIO

/// ``ServerSecretStore`` on PostgreSQL: the twin of `SQLiteServerStore+Secrets.swift`.
extension PostgreSQLServerStore: ServerSecretStore {
    public func secret(named name: String, orStore make: @Sendable () -> Data) async throws -> Data {
        if let found = try await storedSecret(name) { return found }
        // The first process to insert wins; one racing it reads the winner's value back.
        try await client.query("""
            INSERT INTO server_secrets (name, value, created_at)
            VALUES (\(name), \(ByteBuffer(bytes: make())), \(Date().timeIntervalSince1970))
            ON CONFLICT (name) DO NOTHING
            """, logger: logger)
        guard let stored = try await storedSecret(name) else {
            throw StoreCorruption("server secret \(name) vanished right after it was stored")
        }
        return stored
    }

    private func storedSecret(_ name: String) async throws -> Data? {
        try await rows("SELECT value FROM server_secrets WHERE name = \(name)").first.map { row in
            var buffer: ByteBuffer = try row.value("value")
            return Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
        }
    }
}
