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
            "Subject: \(subject)",
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

/// Where mail goes: the spool directory by default, SMTP when configured.
public protocol Mailer: Sendable {
    func send(_ mail: OutgoingMail) async throws
}
