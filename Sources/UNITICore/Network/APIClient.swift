import Foundation

/// What went wrong talking to the study server, sorted by what the client should do about it.
public enum APIError: Error, Equatable, Sendable {
    /// No answer (server down, network off, timeout): keep everything, try again later.
    case unreachable(String)
    /// 401: no session, or the server refused it (a wrong password at login, a session that
    /// ended); keep everything. `code` is the server's (or ``notLoggedInCode``, ``sessionEndedCode``).
    case unauthorized(code: String, message: String)
    /// 4xx other than 401: the request itself is wrong (422 invalid data, 409 conflict, ...).
    case rejected(status: Int, code: String, message: String)
    /// 5xx or an unreadable answer: a server problem; try again later.
    case server(status: Int, message: String)

    /// Whether trying again later may succeed.
    public var isTransient: Bool {
        switch self {
        case .unreachable, .server: return true
        case .unauthorized, .rejected: return false
        }
    }

    /// One line for the person, in their language.
    public var message: String {
        switch self {
        case .unreachable(let reason): return L("core.api.unreachable", ["reason": reason])
        case .unauthorized(let code, let message), .rejected(_, let code, let message):
            return Self.worded(code: code, serverText: message)
        case .server(let status, let message): return L("core.api.server", ["status": "\(status)", "message": message])
        }
    }

    /// The server's stable error code, when it gave one.
    public var code: String? {
        switch self {
        case .unauthorized(let code, _), .rejected(_, let code, _): return code
        case .unreachable, .server: return nil
        }
    }

    /// A request needed a login and there is none (the program never logged in, or logged out).
    public static let notLoggedInCode = "not_logged_in"
    /// The server refused to renew the session (the password changed elsewhere, the account was
    /// deactivated, 30 days unused): the program forgot it.
    public static let sessionEndedCode = "session_ended"

    public static var notLoggedIn: APIError { .unauthorized(code: notLoggedInCode, message: L("core.api.error.not_logged_in")) }
    public static var sessionEnded: APIError { .unauthorized(code: sessionEndedCode, message: L("core.api.error.session_ended")) }

    /// The person's words for an error code of the server, from the client's own string tables
    /// (`core.api.error.<code>`), so a German participant reads German whatever language the
    /// server writes; a code this version does not know keeps the server's own text (and an
    /// empty one its code), never nothing.
    public static func worded(code: String, serverText: String) -> String {
        let key = "core.api.error." + code
        let localizer = CurrentLanguage.localizer
        if localizer.hasKey(key) { return localizer(key) }
        return serverText.isEmpty ? code : serverText
    }
}

/// The answer to a conditional GET: new content with its ETag, or "not modified".
public enum Conditional<Value: Sendable>: Sendable {
    case modified(Value, etag: String?)
    case notModified
}

/// A small JSON client for the study server's `/api/v1`: bearer token in the Authorization
/// header (never in a URL), JSON bodies, the server's `{"error": {"code", "message"}}` turned
/// into `APIError`, and conditional GETs with ETags.
///
/// A client made for the stored session (``SessionStore/client(transport:)``) renews its
/// access token before it ends and, when the server answers 401 all the same, renews it once
/// and sends the request once more (``SessionRefresher``), so no caller handles token expiry.
public struct APIClient: Sendable {
    public let baseURL: URL
    /// The bearer token given explicitly (``withToken(_:)``); nil for a client of the session.
    public let token: String?
    /// The stored session this client speaks for, renewed as needed.
    let session: SessionRefresher?
    let transport: any HTTPTransport

    public init(baseURL: URL, token: String?, transport: any HTTPTransport = CurlTransport()) {
        self.baseURL = baseURL
        self.token = token
        self.session = nil
        self.transport = transport
    }

    init(baseURL: URL, session: SessionRefresher, transport: any HTTPTransport) {
        self.baseURL = baseURL
        self.token = nil
        self.session = session
        self.transport = transport
    }

    /// The same server with exactly this token (or none), not the stored session's.
    public func withToken(_ token: String?) -> APIClient {
        APIClient(baseURL: baseURL, token: token, transport: transport)
    }

    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// An empty JSON object, for requests without a body and answers whose body does not matter.
    public struct Empty: Codable, Sendable { public init() {} }

    /// Sends a request with an optional JSON body and decodes the JSON answer.
    public func send<Response: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [],
                                          body: (some Encodable)? = Optional<Empty>.none,
                                          as type: Response.Type = Response.self) throws -> Response {
        let data = try raw(method, path, query: query, body: body.map { try Self.encoder.encode($0) }).data
        return try decode(Response.self, from: data, path: path)
    }

    /// Sends a body that is JSON already (e.g. payloads queued in the wire format) and decodes the answer.
    public func send<Response: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], jsonBody: Data,
                                          as type: Response.Type = Response.self) throws -> Response {
        try decode(Response.self, from: try raw(method, path, query: query, body: jsonBody).data, path: path)
    }

    /// Sends a request and ignores the body of a successful answer.
    public func call(_ method: String, _ path: String, body: (some Encodable)? = Optional<Empty>.none) throws {
        _ = try raw(method, path, body: body.map { try Self.encoder.encode($0) })
    }

    /// A GET that sends `If-None-Match` and reports 304 as `.notModified`.
    public func conditionalGet<Response: Decodable & Sendable>(_ path: String, query: [URLQueryItem] = [], etag: String?,
                                                               as type: Response.Type = Response.self) throws -> Conditional<Response> {
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = etag }
        let answer = try raw("GET", path, query: query, headers: headers)
        if answer.status == 304 { return .notModified }
        return .modified(try decode(Response.self, from: answer.data, path: path), etag: answer.etag)
    }

    struct RawAnswer {
        let status: Int
        let data: Data
        let etag: String?
    }

    func raw(_ method: String, _ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:],
             body: Data? = nil) throws -> RawAnswer {
        guard let session else { return try raw(method, path, query: query, headers: headers, body: body, token: token) }
        let sent = try session.accessToken()
        do {
            return try raw(method, path, query: query, headers: headers, body: body, token: sent)
        } catch APIError.unauthorized {
            let renewed = try session.tokenAfterRefusal(of: sent)
            do {
                return try raw(method, path, query: query, headers: headers, body: body, token: renewed)
            } catch APIError.unauthorized {
                // Refused with a token just renewed: the session ended in between (elsewhere).
                throw APIError.sessionEnded
            }
        }
    }

    /// One request with `token`.
    private func raw(_ method: String, _ path: String, query: [URLQueryItem], headers: [String: String],
                     body: Data?, token: String?) throws -> RawAnswer {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw APIError.rejected(status: 0, code: "bad_url", message: path) }
        var request = HTTPRequest(method: method, url: url, headers: [
            ("Accept", "application/json"),
            ("User-Agent", "uniti/\(UNITIVersion.string)"),
        ])
        if let token { request.headers.append(("Authorization", "Bearer \(token)")) }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.append((name, value)) }
        if let body {
            request.body = body
            request.headers.append(("Content-Type", "application/json"))
        }
        let response: HTTPResponse
        do {
            response = try transport.send(request)
        } catch {
            throw APIError.unreachable("\(error)")
        }
        let status = response.status
        let data = response.body
        let etag = response.headers["etag"]
        switch status {
        case 200..<300, 304:
            return RawAnswer(status: status, data: data, etag: etag)
        case 401:
            let body = Self.errorBody(data)
            throw APIError.unauthorized(code: body?.code ?? "unauthorized", message: body?.message ?? "HTTP 401")
        case 400..<500:
            let body = Self.errorBody(data)
            throw APIError.rejected(status: status, code: body?.code ?? "http_\(status)",
                                    message: body?.message ?? "HTTP \(status)")
        default:
            throw APIError.server(status: status, message: Self.errorBody(data)?.message ?? "HTTP \(status)")
        }
    }

    private func decode<Response: Decodable>(_ type: Response.Type, from data: Data, path: String) throws -> Response {
        if Response.self == Empty.self, let empty = Empty() as? Response { return empty }
        do {
            return try Self.decoder.decode(Response.self, from: data)
        } catch {
            throw APIError.server(status: 200, message: L("core.api.unreadable", ["path": path]))
        }
    }

    struct ErrorBody: Decodable {
        struct Detail: Decodable {
            let code: String
            let message: String
        }
        let error: Detail
    }

    static func errorBody(_ data: Data) -> (code: String, message: String)? {
        guard let body = try? decoder.decode(ErrorBody.self, from: data) else { return nil }
        return (body.error.code, body.error.message)
    }
}
