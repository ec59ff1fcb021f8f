import Foundation

/// Where a server keeps its data, as `--database` names it: a file path is a SQLite database
/// (the default, one machine); a `postgres://` or `postgresql://` URL is a PostgreSQL database,
/// which several server processes may share.
///
/// PostgreSQL URLs:
/// - `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` over TCP (port 5432 by default);
/// - `postgres://USER@/DATABASE?host=/var/run/postgresql[&port=5432]` through the Unix socket in
///   that directory, as libpq spells it (`.s.PGSQL.<port>` is the socket's name);
/// - `…?connections=N` sets the process's pool to at most N connections (1–100, 20 by default),
///   so that several processes together stay under the server's `max_connections`.
/// A password may also come from `$PGPASSWORD`, so it need not appear in a process list.
public enum StoreLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    public struct PostgresLocation: Sendable, Equatable {
        public var host: String?
        public var port: Int
        /// The socket file when connecting through a Unix socket.
        public var socketPath: String?
        public var username: String
        public var password: String?
        public var database: String
        /// The most connections this process's pool opens.
        public var connections: Int = 20
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else {
            guard !text.isEmpty else { throw Invalid(description: "the database is empty: give a file path or a postgres:// URL") }
            self = .sqlite(path: text)
            return
        }
        guard let components = URLComponents(string: text) else {
            throw Invalid(description: "'\(Self.redacted(text))' is not a URL: use postgres://USER@HOST:PORT/DATABASE")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw Invalid(description: "'\(Self.redacted(text))' names no database: add /DATABASE after the host")
        }
        guard let username = components.user.flatMap({ $0.removingPercentEncoding }), !username.isEmpty else {
            throw Invalid(description: "'\(Self.redacted(text))' names no user: write postgres://USER@…")
        }
        let portText = query["port"] ?? components.port.map(String.init)
        guard let port = portText.map({ Int($0) }) ?? 5432, (1...65535).contains(port) else {
            throw Invalid(description: "'\(Self.redacted(text))' has no valid port")
        }
        let password = components.password?.removingPercentEncoding ?? environment["PGPASSWORD"]
        var location = PostgresLocation(host: nil, port: port, socketPath: nil, username: username, password: password, database: database)
        if let connections = query["connections"] {
            guard let count = Int(connections), (1...100).contains(count) else {
                throw Invalid(description: "'\(Self.redacted(text))' has connections=\(connections): give a number of connections from 1 to 100")
            }
            location.connections = count
        }
        if let host = query["host"], host.hasPrefix("/") {
            location.socketPath = (host as NSString).appendingPathComponent(".s.PGSQL.\(port)")
        } else if let host = components.host, !host.isEmpty {
            location.host = host
        } else {
            throw Invalid(description: "'\(Self.redacted(text))' names no host: write postgres://USER@HOST/… or ?host=/socket/directory")
        }
        self = .postgres(location)
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }

    /// Opens the store (creating and migrating its schema, with the modules' steps, as needed; on
    /// PostgreSQL a step run now is recorded as applied at `now`).
    public func open(now: Date, modules: ServerModules = .installed) async throws -> ServerStore {
        switch self {
        case .sqlite(let path):
            return try ServerStore(sqlitePath: path, modules: modules)
        case .postgres(let location):
            return try await ServerStore.postgres(location, maximumConnections: location.connections, now: now, modules: modules)
        }
    }
}
