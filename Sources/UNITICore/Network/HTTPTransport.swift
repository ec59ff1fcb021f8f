import CCurlLoader
import Foundation

/// One HTTP request as the API client builds it.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: Data?

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to a request; header names are lower-cased.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends one HTTP request and waits for the answer.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) throws -> HTTPResponse
}

/// A network failure before any HTTP answer (refused connection, DNS, timeout).
public struct TransportError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// HTTP through libcurl, loaded on the first request (see `CCurlLoader`): the shell starts
/// without paying for libcurl and its TLS libraries unless it talks to the server.
public struct CurlTransport: HTTPTransport {
    public let timeoutSeconds: Int

    public init(timeoutSeconds: Int = 15) {
        self.timeoutSeconds = timeoutSeconds
    }

    public func send(_ request: HTTPRequest) throws -> HTTPResponse {
        var response = uniti_http_response()
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        var cLines = lines.map { strdup($0) }
        defer { cLines.forEach { free($0) } }
        let result: Int32 = cLines.withUnsafeMutableBufferPointer { pointers in
            pointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { headerPointers in
                let body = request.body ?? Data()
                return body.withUnsafeBytes { bytes in
                    uniti_http_perform(request.method, request.url.absoluteString,
                                       headerPointers.baseAddress, headerPointers.count,
                                       bytes.baseAddress, bytes.count, timeoutSeconds, &response)
                }
            }
        }
        defer { uniti_http_response_free(&response) }
        guard result == 0 else {
            let reason = withUnsafeBytes(of: response.error) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw TransportError(description: reason)
        }
        let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
        let headerText = response.headers.map { String(cString: $0) } ?? ""
        return HTTPResponse(status: response.status, headers: Self.parseHeaders(headerText), body: body)
    }

    /// Header lines of the last response in `text` (after redirects or `100 Continue`, the last
    /// block counts), names lower-cased.
    static func parseHeaders(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("HTTP/") {
                headers = [:]
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = value
        }
        return headers
    }
}
