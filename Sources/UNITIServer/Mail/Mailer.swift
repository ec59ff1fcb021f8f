import Foundation

/// A message the server sends (activation, password reset).
public struct OutgoingMail: Sendable, Hashable {
    public var to: String
    public var subject: String
    public var body: String

    public init(to: String, subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }

    /// The message as RFC 5322 text (what the spool stores and SMTP sends).
    public func rfc5322(from sender: String, date: Date, messageId: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return [
            "From: \(sender)",
            "To: \(to)",
            "Subject: \(MailHeader.encoded(subject))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <\(messageId)@uniti-server>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
            "",
            body,
        ].joined(separator: "\r\n") + "\r\n"
    }
}

/// A header value as RFC 5322 carries it: ASCII only. A value with other characters (a German
/// subject, `Passwort zurücksetzen`) goes as RFC 2047 encoded words (`=?UTF-8?B?…?=`), each of
/// whole characters and short enough for a line of its own; a control character (a line break
/// that would start a header of its own) is encoded too.
enum MailHeader {
    static func encoded(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { !$0.isASCII || $0.value < 0x20 || $0.value == 0x7F }) else { return value }
        var words: [String] = [], chunk: [UInt8] = []
        for character in value {
            let bytes = Array(String(character).utf8)
            // 36 bytes are 48 in base64: with "=?UTF-8?B?" and "?=", and "Subject: " before the
            // first, every line stays within RFC 2047's 76 characters.
            if chunk.count + bytes.count > 36, !chunk.isEmpty {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// The value of the header `name` in a message's text, unfolded and with its encoded words
    /// decoded (`mail list`, and tests reading the spool); nil when the message has none.
    static func value(_ name: String, in message: String) -> String? {
        let head = message.components(separatedBy: "\r\n\r\n").first ?? message
        var lines: [String] = []
        for line in head.components(separatedBy: "\r\n") {
            if line.hasPrefix(" ") || line.hasPrefix("\t"), !lines.isEmpty { lines[lines.count - 1] += line } else { lines.append(line) }
        }
        guard let line = lines.first(where: { $0.lowercased().hasPrefix(name.lowercased() + ":") }) else { return nil }
        return decoded(String(line.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces))
    }

    /// Encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) as text; the space between two of them
    /// is no text (RFC 2047, 6.2).
    static func decoded(_ value: String) -> String {
        let pattern = #/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/#
        var result = "", rest = Substring(value), lastWasWord = false
        while let match = rest.firstMatch(of: pattern) {
            let between = rest[rest.startIndex..<match.range.lowerBound]
            if !(lastWasWord && between.allSatisfy(\.isWhitespace)) { result += between }
            let text = String(match.output.3)
            let bytes: Data? = if match.output.2.uppercased() == "B" {
                Data(base64Encoded: text)
            } else {
                Self.quotedPrintable(text)
            }
            if let bytes, let decoded = String(data: bytes, encoding: .utf8) { result += decoded } else { result += match.output.0 }
            rest = rest[match.range.upperBound...]
            lastWasWord = true
        }
        return result + rest
    }

    /// The `Q` encoding: `_` a space, `=XX` a byte in hex, anything else itself.
    private static func quotedPrintable(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = [], position = 0
        while position < utf8.count {
            if utf8[position] == UInt8(ascii: "_") {
                bytes.append(0x20)
                position += 1
            } else if utf8[position] == UInt8(ascii: "=") {
                guard position + 2 < utf8.count,
                      let byte = UInt8(String(decoding: utf8[(position + 1)...(position + 2)], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(byte)
                position += 3
            } else {
                bytes.append(utf8[position])
                position += 1
            }
        }
        return Data(bytes)
    }
}

/// Where mail goes: the spool directory by default, SMTP when configured.
public protocol Mailer: Sendable {
    func send(_ mail: OutgoingMail) async throws
}
