import Foundation
import HTTPTypes
import Hummingbird
#if canImport(Glibc)
import Glibc
#endif

/// Where a request came from, for the throttles that count per client address (failed logins,
/// registrations, reset requests): one IPv4 or IPv6 address. Put on the request context by
/// ``ClientAddressMiddleware``.
public struct ClientAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in canonical text (IPv6 compressed; an IPv4-mapped IPv6 address as IPv4), so
    /// that one address is always counted under one key.
    public let text: String
    private let bytes: [UInt8]

    /// Parses an IPv4 or IPv6 address (IPv6 may be in brackets); nil for anything else.
    public init?(_ raw: some StringProtocol) {
        var text = raw.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        let parsed: [UInt8]
        if inet_pton(AF_INET, text, &v4) == 1 {
            parsed = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let all = withUnsafeBytes(of: &v6) { Array($0) }
            let mapped = all.prefix(10).allSatisfy { $0 == 0 } && all[10] == 0xff && all[11] == 0xff
            parsed = mapped ? Array(all.suffix(4)) : all
        } else {
            return nil
        }
        bytes = parsed
        self.text = Self.format(parsed)
    }

    private static func format(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, &copy, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { text }

    var isLoopback: Bool {
        bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// What the throttles count under: the address itself, or for IPv6 its /64 — one household or
    /// one server is usually given a whole /64, so single IPv6 addresses would cost an attacker
    /// nothing.
    var throttleKey: String {
        guard bytes.count == 16 else { return text }
        return Self.format(Array(bytes.prefix(8)) + [UInt8](repeating: 0, count: 8)) + "/64"
    }
}

/// The peers whose forwarded headers (`X-Forwarded-For`, `X-Forwarded-Proto`) the server
/// believes: the proxies in front of it (`serve --trusted-proxy`, as nginx in
/// Documentation/uniti-server.md). Loopback by default, for nginx on the same machine. From any
/// other peer the headers are ignored, so a client cannot name itself a new address for every
/// guess, nor claim TLS it did not use.
public struct TrustedProxies: Sendable {
    var loopback: Bool
    var addresses: Set<ClientAddress>

    /// Peers on loopback (127.0.0.0/8, ::1).
    public static let loopback = TrustedProxies(loopback: true, addresses: [])
    /// No peer: `X-Forwarded-For` is never believed (a server reached directly).
    public static let none = TrustedProxies(loopback: false, addresses: [])

    init(loopback: Bool, addresses: Set<ClientAddress>) {
        self.loopback = loopback
        self.addresses = addresses
    }

    /// From `--trusted-proxy` values: IP addresses, `loopback`, or `none` alone; throws naming the
    /// first value that is none of these.
    public init(parsing values: [String]) throws {
        if values == ["none"] {
            self = .none
            return
        }
        self = TrustedProxies(loopback: false, addresses: [])
        for value in values {
            if value == "loopback" {
                loopback = true
            } else if let address = ClientAddress(value) {
                addresses.insert(address)
            } else {
                throw InvalidProxy(value: value)
            }
        }
    }

    struct InvalidProxy: Error, CustomStringConvertible {
        let value: String
        var description: String {
            "--trusted-proxy: '\(value)' is no IP address; give an address such as 10.0.0.5 or ::1, 'loopback', or 'none' alone."
        }
    }

    func trusts(_ peer: ClientAddress) -> Bool {
        (loopback && peer.isLoopback) || addresses.contains(peer)
    }

    /// The client of a request from `peer` that carries `forwardedFor` (every `X-Forwarded-For`
    /// value, in order). Walking the header from the right, each trusted hop's word about the hop
    /// before it is believed; the first hop that is not trusted is the client. An entry that is
    /// no address ends the walk (what lies left of it cannot be checked).
    func client(peer: ClientAddress?, forwardedFor: [String]) -> ClientAddress? {
        guard var current = peer else { return nil }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            guard trusts(current), let address = ClientAddress(hop) else { break }
            current = address
        }
        return current
    }
}

/// Puts what the forwarded headers say on the context, believed from a trusted proxy only: the
/// request's ``ClientAddress`` (``ServerRequestContext/clientAddress``) and whether it came over
/// TLS (``ServerRequestContext/overTLS``), once for every route, as authentication puts the
/// identity there.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    let proxies: TrustedProxies

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        let peer = context.remoteAddress?.ipAddress.flatMap { ClientAddress($0) }
        context.clientAddress = proxies.client(peer: peer, forwardedFor: request.headers[values: Self.forwardedFor])
        context.overTLS = request.uri.scheme == .https || proxies.overTLS(peer: peer, forwardedProto: request.headers[Self.forwardedProto])
        return try await next(request, context)
    }
}

extension TrustedProxies {
    /// Whether a request from `peer` that did not come over TLS to this server came over TLS to
    /// the proxy: the `X-Forwarded-Proto` of a trusted proxy (the nearest hop's word: the last
    /// value of a list), never another peer's.
    func overTLS(peer: ClientAddress?, forwardedProto: String?) -> Bool {
        guard let peer, trusts(peer), let forwardedProto else { return false }
        let nearest = forwardedProto.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return nearest == "https"
    }
}
