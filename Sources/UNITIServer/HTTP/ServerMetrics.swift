import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus

/// What the server measures, through swift-metrics, and `/metrics` in the Prometheus text format
/// (swift-prometheus) on a listener of its own (`serve --metrics-port`): a scrape never reaches
/// the public port, where `/metrics` answers 404.
///
/// - `uniti_http_requests_total{route,method,status}` and the latency histogram
///   `uniti_http_request_duration_seconds{route,method,status}`: Hummingbird's `MetricsMiddleware`,
///   by the route's pattern, never the path;
/// - `uniti_sheets_stored_total`, `uniti_records_stored_total`: new answer sheets and module
///   records written (a sheet or record sent again is not counted twice);
/// - `uniti_logins_refused_total{reason}` and `uniti_security_events_total{event}` (``SecurityEvent``);
/// - `uniti_portal_sessions_active`: portal logins not expired or ended, read from the store at
///   each scrape (so it agrees across server processes sharing a database);
/// - `uniti_database_waits_total`: on SQLite, writes that waited for the one writer connection; on
///   PostgreSQL, uses of the connection pool that began while every connection was taken
///   (`serve --database` with more work than connections). The store counts them into the
///   process's backend (``ServerStore/init(sqlitePath:modules:metrics:)``).
public enum ServerMetrics {
    static let sheetsStored = "uniti_sheets_stored_total"
    static let recordsStored = "uniti_records_stored_total"
    static let loginsRefused = "uniti_logins_refused_total"
    static let securityEvents = "uniti_security_events_total"
    static let portalSessions = "uniti_portal_sessions_active"
    static let databaseWaits = "uniti_database_waits_total"

    /// Hummingbird's names (OpenTelemetry's) as Prometheus names, and its dimensions as short labels.
    static let renamed = [
        "hb.requests": "uniti_http_requests_total",
        "http.server.request.duration": "uniti_http_request_duration_seconds",
        "hb.request.errors": "uniti_http_request_errors_total",
        "http.server.active_requests": "uniti_http_requests_active",
    ]
    static let relabeled = ["http.route": "route", "http.request.method": "method", "http.response.status_code": "status", "error.type": "status"]

    /// Sends swift-metrics to a new Prometheus registry, once per process (swift-metrics has one
    /// backend per process), and returns the registry `/metrics` reads.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (renamed[name] ?? name, labels.map { (relabeled[$0.0] ?? $0.0, $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// The router of the metrics listener: `GET /metrics` and nothing else.
    static func router(registry: PrometheusCollectorRegistry, store: ServerStore, clock: any ServerClock) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("metrics") { _, _ in
            // A gauge read at scrape time from the store, which every server process shares.
            let sessions = try await store.activePortalSessions(now: clock.now())
            Gauge(label: portalSessions).record(sessions)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return router
    }

    /// The metrics listener, run as a service beside the public one.
    static func application(registry: PrometheusCollectorRegistry, environment: ServerEnvironment, host: String, port: Int,
                            logger: Logger, onServerRunning: (@Sendable (Int) async -> Void)?) -> some ApplicationProtocol {
        Application(router: router(registry: registry, store: environment.store, clock: environment.clock),
                    configuration: .init(address: .hostname(host, port: port), serverName: "uniti-server-metrics"),
                    onServerRunning: { channel in await onServerRunning?(channel.localAddress?.port ?? port) },
                    logger: logger)
    }
}
