import CCurlSMTP
import Foundation
import NIOPosix

/// Sends mail by SMTP through libcurl (`--smtp-url smtp://user:password@host:587`; STARTTLS when
/// the server offers it, or `smtps://` for TLS from the start). libcurl blocks for as long as the
/// mail server takes (up to its 30 s timeout), so each message is sent on SwiftNIO's thread pool
/// for blocking work (`NIOThreadPool`), never on the server's event loops nor on Swift's shared
/// pool of task threads, of which there are as many as cores and which every request needs.
public struct SMTPMailer: Mailer {
    public let url: String
    public let sender: String
    let clock: any ServerClock
    /// Where delivery blocks (``NIOThreadPool/singleton`` unless a test gives its own).
    let pool: NIOThreadPool

    public init(url: String, sender: String, clock: any ServerClock = SystemServerClock(), pool: NIOThreadPool = .singleton) throws {
        guard url.hasPrefix("smtp://") || url.hasPrefix("smtps://"), URL(string: url)?.host != nil else {
            throw SMTPError("--smtp-url must look like smtp://[user:password@]host[:port] or smtps://...")
        }
        self.url = url
        self.sender = sender
        self.clock = clock
        self.pool = pool
    }

    public func send(_ mail: OutgoingMail) async throws {
        let message = mail.rfc5322(from: sender, date: clock.now(), messageId: SecretTokens.generate().prefix(16).lowercased())
        let url = self.url, sender = self.sender
        let failure: String? = try await pool.runIfActive {
            Self.deliver(url: url, from: sender, to: mail.to, message: message)
        }
        if let failure { throw SMTPError("SMTP delivery to \(mail.to) failed: \(failure)") }
    }

    /// Returns nil on success, else libcurl's reason.
    private static func deliver(url: String, from: String, to: String, message: String) -> String? {
        var error = [CChar](repeating: 0, count: 512)
        let bytes = Array(message.utf8)
        let code = url.withCString { urlPointer in
            from.withCString { fromPointer in
                to.withCString { toPointer in
                    var recipients: [UnsafePointer<CChar>?] = [toPointer]
                    return recipients.withUnsafeMutableBufferPointer { list in
                        bytes.withUnsafeBufferPointer { body in
                            body.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                                uniti_smtp_send(urlPointer, fromPointer, list.baseAddress, 1, text, bytes.count, 30, &error, error.count)
                            }
                        }
                    }
                }
            }
        }
        guard code != 0 else { return nil }
        return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A failure to configure or use SMTP.
public struct SMTPError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
