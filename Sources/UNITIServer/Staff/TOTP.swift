import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) as authenticator apps make them: HMAC-SHA-1 over
/// the count of 30-second steps since 1970, truncated to 6 digits (RFC 4226, 5.3). The staff
/// console's second factor.
public struct TOTP: Sendable {
    public let secret: Data
    public var digits = 6
    public var period: TimeInterval = 30

    public init(secret: Data, digits: Int = 6) {
        self.secret = secret
        self.digits = digits
    }

    /// A new random secret of 20 bytes (160 bits, the size RFC 4226 recommends).
    public static func newSecret<R: RandomNumberGenerator>(using generator: inout R) -> Data {
        Data((0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The time step `date` falls in.
    public func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / period).rounded(.down))
    }

    /// The code of one time step, zero-padded to ``digits``.
    public func code(step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let number = String(binary % modulus)
        return String(repeating: "0", count: digits - number.count) + number
    }

    public func code(at date: Date) -> String {
        code(step: step(at: date))
    }

    /// The step a typed code belongs to, if it is the code of the current step or of one step
    /// before or after (a phone's clock a little off, a code typed as it turned); nil otherwise.
    /// Whether the step was used before is the store's question (``ServerStore/acceptTOTPStep(staffId:step:)``).
    public func matchingStep(_ typed: String, at date: Date) -> Int64? {
        let typed = typed.filter { !$0.isWhitespace }
        guard typed.count == digits, typed.allSatisfy(\.isASCII), typed.allSatisfy(\.isNumber) else { return nil }
        let now = step(at: date)
        return [now, now - 1, now + 1].first { CSRF.constantTimeEqual(code(step: $0), typed) }
    }

    /// The `otpauth://` URI authenticator apps read from the QR code.
    public func uri(account: String, issuer: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~@"))
        let label = "\(issuer):\(account)".addingPercentEncoding(withAllowedCharacters: allowed.union(CharacterSet(charactersIn: ":"))) ?? account
        let issuerParameter = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? issuer
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(issuerParameter)&algorithm=SHA1&digits=\(digits)&period=\(Int(period))"
    }
}

/// RFC 4648 base32 without padding, the way authenticator apps show and take TOTP secrets.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    public static func encode(_ data: Data) -> String {
        var result = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                result.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { result.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return result
    }

    /// The bytes of a base32 text (case, spaces and padding ignored); nil for any other character.
    public static func decode(_ text: String) -> Data? {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased() where character != "=" && !character.isWhitespace {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return Data(bytes)
    }
}
