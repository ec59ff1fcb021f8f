import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics

/// One log line per request, for the operator: the request id, the method, the route's pattern
/// (`/api/v1/studies/{id}/join`, never the path itself, which may hold a code or an id), the
/// status and the duration. Nothing a person typed or is known by appears: no e-mail address,
/// user name, token, password, answer or free text, and no IP address (an operator who needs
/// addresses has them in the proxy's log). The line's time is the log handler's.
///
/// The request id is the caller's `X-Request-ID` when it is a plain token (so a proxy's id joins
/// the two logs), else one made here; it is echoed in the response and carried by every line
/// logged while the request runs (``SecurityEvent`` among them).
///
/// The outermost middleware, so that it sees every request, the status every error became and
/// the whole time.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    /// A new request id (random, injected so a test can fix it).
    let makeID: @Sendable () -> String
    let clock = ContinuousClock()

    init(logger: Logger, makeID: @escaping @Sendable () -> String = RequestID.random) {
        self.logger = logger
        self.makeID = makeID
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = clock.now
        let id = request.headers[.xRequestID].flatMap(RequestID.accepted) ?? makeID()
        var requestLogger = logger
        requestLogger[metadataKey: "request_id"] = "\(id)"
        var context = context
        context.logger = requestLogger
        var response: Response
        do {
            response = try await RequestLog.$logger.withValue(requestLogger) { try await next(request, context) }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            log(requestLogger, request, context, status: .internalServerError, since: started)
            throw error
        }
        response.headers[.xRequestID] = id
        log(requestLogger, request, context, status: response.status, since: started)
        return response
    }

    /// `12.3`: a non-negative number to one decimal, as `%.1f` writes it but without
    /// `String(format:)`, which cost a visible share of a small request.
    static func tenths(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private func log(_ logger: Logger, _ request: Request, _ context: Context, status: HTTPResponse.Status, since started: ContinuousClock.Instant) {
        let elapsed = started.duration(to: clock.now)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            // Hummingbird's matched route; "NotFound" when none matched.
            "route": "\(context.endpointPath ?? "NotFound")",
            "status": "\(status.code)",
            "duration_ms": "\(Self.tenths(milliseconds))",
        ])
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-ID")!
}

/// Request ids: taken from the caller when they are plain tokens, else made.
enum RequestID {
    /// `text` when it is 1–64 characters of letters, digits, `-`, `_`, `.` (what proxies send: a
    /// UUID, a hex string); nil otherwise, so no header smuggles text into the log.
    static func accepted(_ text: String) -> String? {
        guard (1...64).contains(text.utf8.count),
              text.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return text
    }

    /// 16 random hexadecimal digits.
    @Sendable static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

private extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}

/// The logger of the request being handled, with its id (``RequestLogMiddleware``). A task-local,
/// because the services that notice a security event (``AccountService``, ``StudyService``) are
/// shared by the API and the portal and take no request context; it is nil outside a request.
enum RequestLog {
    @TaskLocal static var logger: Logger?
}

/// Refusals an operator watches for: logged as such, with the request id and never the guessed
/// values (no login name, password or address), and counted in the metrics
/// (`uniti_security_events_total`; the two login refusals also in `uniti_logins_refused_total`).
enum SecurityEvent: String, Sendable {
    /// A login with a wrong name or password.
    case loginRefused = "login_refused"
    /// A login refused because its account or client must wait (``LoginThrottle``).
    case loginThrottled = "login_throttled"
    /// A registration or password-reset request refused while its address or client must wait.
    case mailRequestThrottled = "mail_request_throttled"
    /// A wrong study password.
    case studyPasswordRefused = "study_password_refused"
    /// A study password refused because the person or the study must wait.
    case studyPasswordThrottled = "study_password_throttled"
    /// A portal form without a valid CSRF token.
    case csrfRefused = "csrf_refused"

    /// Logs the event on the current request's logger and counts it.
    func record() {
        RequestLog.logger?.warning("security event", metadata: ["event": "\(rawValue)"])
        Counter(label: ServerMetrics.securityEvents, dimensions: [("event", rawValue)]).increment()
        switch self {
        case .loginRefused: Counter(label: ServerMetrics.loginsRefused, dimensions: [("reason", "wrong_credentials")]).increment()
        case .loginThrottled: Counter(label: ServerMetrics.loginsRefused, dimensions: [("reason", "throttled")]).increment()
        default: break
        }
    }
}
