import Crypto
import Foundation

/// Bearer, refresh and mailed tokens: 32 random bytes, handed out once in base64url and kept by the
/// server only as a SHA-256 hash, so a stolen database holds no usable token.
public enum SecretTokens {
    /// A new random token (43 base64url characters).
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64url(Data(bytes))
    }

    /// Bytes as unpadded base64url: safe in a cookie, a form field and a URL without escaping.
    public static func base64url(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A code sent by mail (activation, password reset), which people copy or type after a
    /// command: 26 characters from a 32-letter alphabet without look-alikes (130 bits). Unlike
    /// base64url it never starts with "-", which a command line would read as an option
    /// (`activate -h…` showed the help and activated nothing).
    public static func mailCode() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<26).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The hex SHA-256 digest under which a token is stored. Every authenticated request computes
    /// one, so the hex digits are written directly (`String(format:)` per byte was a tenth of the
    /// server's time under load).
    public static func hash(_ token: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// How many characters a pseudonym has: `p-` and 12 hex digits.
    public static let pseudonymLength = 14

    /// A stable random participant pseudonym for exports (`p-` and 12 hex digits).
    public static func pseudonym() -> String {
        var generator = SystemRandomNumberGenerator()
        return "p-" + (0..<6).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }
}
