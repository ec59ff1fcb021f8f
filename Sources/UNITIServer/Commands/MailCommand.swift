import ArgumentParser
import Foundation

/// `uniti-server mail list|show ID`: reads the mail spool.
struct MailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail", abstract: "Read mail written to the spool directory.", subcommands: [List.self, Show.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List spooled messages, oldest first.")
        @OptionGroup var spool: MailSpoolOptions

        func run() async throws {
            let messages = try SpoolMailer(directory: URL(fileURLWithPath: spool.mailSpool)).messages()
            CommandOutput.table(["ID", "TO", "SUBJECT"], messages.map { message in
                let text = (try? String(contentsOf: message.url, encoding: .utf8)) ?? ""
                return [message.id, MailHeader.value("To", in: text) ?? "", MailHeader.value("Subject", in: text) ?? ""]
            })
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one message.")
        @OptionGroup var spool: MailSpoolOptions
        @Argument(help: "Message id from 'mail list'.") var id: String

        func run() async throws {
            let messages = try SpoolMailer(directory: URL(fileURLWithPath: spool.mailSpool)).messages()
            guard let message = messages.first(where: { $0.id == id }) else {
                throw ValidationError("No message '\(id)' in \(spool.mailSpool); see 'mail list'.")
            }
            print(try String(contentsOf: message.url, encoding: .utf8).replacingOccurrences(of: "\r\n", with: "\n"), terminator: "")
        }
    }
}
