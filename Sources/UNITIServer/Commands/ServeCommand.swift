import ArgumentParser
import Foundation
import Hummingbird
import Logging

extension LogFormat: ExpressibleByArgument {}

/// `uniti-server serve`: runs the HTTP API (and the participant web portal at `/`) until
/// SIGTERM or SIGINT, logging one line per request (``RequestLogMiddleware``) and, with
/// `--metrics-port`, serving `/metrics` on a listener of its own (``ServerMetrics``).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the study server.")

    @Option(help: "Address to bind; loopback unless you mean to expose the server.")
    var host: String = "127.0.0.1"

    @Option(help: "TCP port (0 picks a free one and prints it).")
    var port: Int = 8080

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var mail: MailDeliveryOptions

    @Flag(name: .customLong("no-portal"), help: "Serve only the JSON API and /health, not the participant web portal at /.")
    var noPortal = false

    @Option(name: .customLong("public-url"),
            help: "Address the portal is reached at from outside, e.g. https://study.example.org; mails then link to the portal page with the code filled in.")
    var publicURL: String?

    @Option(name: .customLong("bcrypt-cost"), help: "Bcrypt cost for new password hashes (4–31).")
    var bcryptCost: Int = 12

    @Option(name: .customLong("access-token-lifetime"),
            help: "Seconds an app's access token lives before the app renews it with its refresh token.")
    var accessTokenLifetime: Int = 60 * 60

    @Option(name: .customLong("refresh-token-lifetime"),
            help: "Seconds a refresh token lives unused (each renewal gives a new one); also the longest a portal session lasts.")
    var refreshTokenLifetime: Int = 30 * 24 * 60 * 60

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "A proxy in front of the server (repeatable): only its forwarded headers are believed, X-Forwarded-For naming the client address the throttles count and X-Forwarded-Proto saying the request came over TLS. Default: loopback, as nginx on this machine; 'none' believes no proxy.",
        valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("log-format"), help: "The log's lines: text, or json (one JSON object per line, for a log collector).")
    var logFormat: LogFormat = .text

    @Option(name: .customLong("metrics-host"), help: "Address of the metrics listener; loopback unless the scraper is elsewhere.")
    var metricsHost: String = "127.0.0.1"

    @Option(name: .customLong("metrics-port"), help: ArgumentHelp(
        "Serve /metrics (Prometheus text format) on this port, apart from the public one (0 picks a free one and prints it). Off when not given.",
        valueName: "port"))
    var metricsPort: Int?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        if let metricsPort {
            guard (0...65535).contains(metricsPort) else { throw ValidationError("--metrics-port must be 0 to 65535.") }
            guard metricsPort == 0 || metricsPort != port || metricsHost != host else {
                throw ValidationError("--metrics-port must differ from --port: /metrics never shares the public listener.")
            }
        }
        guard accessTokenLifetime > 0, refreshTokenLifetime > 0, accessTokenLifetime < refreshTokenLifetime else {
            throw ValidationError("--access-token-lifetime and --refresh-token-lifetime must be positive seconds, the access token's shorter (given \(accessTokenLifetime) and \(refreshTokenLifetime)).")
        }
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be 4 to 31.") }
        if !trustedProxies.isEmpty {
            do { _ = try TrustedProxies(parsing: trustedProxies) } catch { throw ValidationError("\(error)") }
        }
        if let publicURL, Self.portalBase(publicURL) == nil {
            throw ValidationError("--public-url must be an http or https address without query or fragment, e.g. https://study.example.org.")
        }
    }

    /// The public address without a trailing `/`, or nil when it is no plain http(s) address.
    static func portalBase(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil else { return nil }
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    func run() async throws {
        try ServerApplication.checkResources(portal: !noPortal, modules: ServerModules.installed)
        logFormat.bootstrap()
        // swift-metrics has one backend per process; without --metrics-port nothing is recorded.
        let registry = metricsPort == nil ? nil : ServerMetrics.bootstrap()
        var logger = Logger(label: "uniti-server")
        logger.logLevel = ProcessInfo.processInfo.environment["UNITI_SERVER_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        for warning in Self.sharedFileWarnings(database: database.database, spool: mail.smtpURL == nil ? mail.spool.mailSpool : nil) {
            logger.warning("\(warning)")
        }
        let store = try await database.openStore()
        let mailer = try mail.mailer()
        let environment = ServerEnvironment(store: store, mailer: mailer, passwords: PasswordHasher(cost: UInt8(bcryptCost)),
                                            // Without the portal there is no page to link to: mails carry the code only.
                                            publicURL: noPortal ? nil : publicURL.flatMap(Self.portalBase),
                                            accessTokenLifetime: TimeInterval(accessTokenLifetime),
                                            refreshTokenLifetime: TimeInterval(refreshTokenLifetime),
                                            trustedProxies: trustedProxies.isEmpty ? .loopback : try TrustedProxies(parsing: trustedProxies))
        let metrics = registry.map { registry in
            ServerMetrics.application(registry: registry, environment: environment, host: metricsHost, port: metricsPort ?? 0,
                                      logger: logger) { [metricsHost] port in
                FileHandle.standardOutput.write(Data("uniti-server metrics on http://\(metricsHost):\(port)/metrics\n".utf8))
            }
        }
        let app = ServerApplication.application(environment: environment, host: host, port: port, portal: !noPortal, logger: logger,
                                                metrics: metrics) { [host] port in
            FileHandle.standardOutput.write(Data("uniti-server listening on http://\(host):\(port)\n".utf8))
        }
        do {
            try await app.runService()
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

extension ServeCommand {
    /// One line per server file that others can read (``PrivateFiles/warnings(_:)``): a SQLite
    /// database with its `-wal` and `-shm`, and the spooled mails. The server makes new ones
    /// private; older ones, or ones an operator copied, are named at start, not changed.
    static func sharedFileWarnings(database: String, spool: String?) -> [String] {
        var paths: [String] = []
        if case .sqlite(let path)? = try? StoreLocation(parsing: database) {
            paths += [path, path + "-wal", path + "-shm"]
        }
        if let spool, let mails = try? SpoolMailer(directory: URL(fileURLWithPath: spool)).messages() {
            paths += mails.map(\.url.path)
        }
        return PrivateFiles.warnings(paths)
    }
}
