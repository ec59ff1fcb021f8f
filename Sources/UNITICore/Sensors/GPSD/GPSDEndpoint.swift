import Foundation

/// Where gpsd listens: a host and a TCP port, written `host:port` (`localhost:2947`,
/// `192.168.1.20:2947`, `[::1]:2947`); a bare host means gpsd's own port 2947.
struct GPSDEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// gpsd's registered port.
    static let standardPort: UInt16 = 2947

    let host: String
    let port: UInt16

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port`; nil when it is not one (an empty host, a port outside 1…65535).
    init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        var host = Substring(text)
        var port = Self.standardPort
        if text.hasPrefix("[") {
            // An IPv6 address in brackets, optionally followed by `:port`.
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = UInt16(rest.dropFirst()), number > 0 else { return nil }
                port = number
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            guard let number = UInt16(text[text.index(after: colon)...]), number > 0 else { return nil }
            port = number
        }
        // More than one colon without brackets: a bare IPv6 address on the standard port.
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "[" || $0 == "]" }) else { return nil }
        self.host = String(host)
        self.port = port
    }

    var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
