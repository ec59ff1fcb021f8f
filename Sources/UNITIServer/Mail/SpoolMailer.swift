import Foundation

/// Writes each message as an `.eml` file into a directory: nothing to set up, and tests (and a
/// coordinator without a mail server) read activation and reset links from there. The messages
/// carry live codes, so the folder is 0700 and each file 0600 (``PrivateFiles``).
public struct SpoolMailer: Mailer {
    public let directory: URL
    let sender: String
    let clock: any ServerClock

    public init(directory: URL, sender: String = "UNITI <no-reply@uniti.invalid>", clock: any ServerClock = SystemServerClock()) {
        self.directory = directory
        self.sender = sender
        self.clock = clock
    }

    public func send(_ mail: OutgoingMail) async throws {
        try PrivateFiles.createFolder(directory.path)
        let now = clock.now()
        // Sortable by time, unique by a random suffix.
        let id = String(format: "%013.0f", now.timeIntervalSince1970 * 1000) + "-" + String(SecretTokens.generate().prefix(8))
        let file = directory.appendingPathComponent("\(id).eml")
        let temporary = directory.appendingPathComponent(".\(id).tmp")
        try PrivateFiles.write(Data(mail.rfc5322(from: sender, date: now, messageId: id).utf8), toNew: temporary.path)
        try FileManager.default.moveItem(at: temporary, to: file)
    }

    /// The spooled messages, oldest first: (id, file).
    public func messages() throws -> [(id: String, url: URL)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".eml") }.sorted().map {
            (String($0.dropLast(4)), directory.appendingPathComponent($0))
        }
    }
}
