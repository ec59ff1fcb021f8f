import ArgumentParser
import Foundation
import Hummingbird
import Logging

/// `uniti-server serve`: runs the HTTP API (and the participant web portal at `/`) until
/// SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the study server.")

    @Option(help: "Address to bind; loopback unless you mean to expose the server.")
    var host: String = "127.0.0.1"

    @Option(help: "TCP port (0 picks a free one and prints it).")
    var port: Int = 8080

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var spool: MailSpoolOptions

    @Option(name: .customLong("smtp-url"), help: "Send mail by SMTP instead of the spool, e.g. smtp://mail.example.org:587.")
    var smtpURL: String?

    @Option(name: .customLong("smtp-from"), help: "Sender address for SMTP mail.")
    var smtpFrom: String = "no-reply@uniti.invalid"

    @Flag(name: .customLong("no-portal"), help: "Serve only the JSON API and /health, not the participant web portal at /.")
    var noPortal = false

    @Option(name: .customLong("bcrypt-cost"), help: "Bcrypt cost for new password hashes (4–31).")
    var bcryptCost: Int = 12

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be 4 to 31.") }
    }

    func run() async throws {
        var logger = Logger(label: "uniti-server")
        logger.logLevel = ProcessInfo.processInfo.environment["UNITI_SERVER_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let store = try await database.openStore()
        let mailer: any Mailer
        if let smtpURL {
            mailer = try SMTPMailer(url: smtpURL, sender: smtpFrom)
        } else {
            mailer = SpoolMailer(directory: URL(fileURLWithPath: spool.mailSpool))
        }
        let environment = ServerEnvironment(store: store, mailer: mailer, passwords: PasswordHasher(cost: UInt8(bcryptCost)))
        let app = ServerApplication.application(environment: environment, host: host, port: port, portal: !noPortal, logger: logger) { [host] port in
            FileHandle.standardOutput.write(Data("uniti-server listening on http://\(host):\(port)\n".utf8))
        }
        do {
            try await app.runService()
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}
