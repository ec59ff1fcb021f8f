import ArgumentParser
import Foundation

/// `--database PATH|URL`, shared by `serve` and every coordinator command so that they work on
/// the same data: a SQLite file, or a PostgreSQL database (``StoreLocation``).
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "SQLite database file (created if missing), or a PostgreSQL URL: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or postgres://USER@/DATABASE?host=SOCKET_DIRECTORY.",
        valueName: "path-or-url"))
    var database: String = ProcessInfo.processInfo.environment["UNITI_SERVER_DATABASE"] ?? "uniti-server.sqlite"

    func validate() throws {
        do {
            _ = try StoreLocation(parsing: database)
        } catch {
            throw ValidationError("--database: \(error)")
        }
    }

    /// Opens the store. A coordinator command leaves it open until the process ends (a
    /// PostgreSQL connection then closes with the process); `serve` closes it when it stops.
    func openStore() async throws -> ServerStore {
        do {
            // The command is where the wall clock is read (a store takes its time from the caller).
            return try await StoreLocation(parsing: database).open(now: Date())
        } catch {
            throw ValidationError("Cannot open database '\(StoreLocation.redacted(database))': \(error)")
        }
    }
}

/// `--limit N --offset M`: one page of a list that grows with the participants (accounts, join
/// requests), and the line saying where the page lies in the whole list.
struct PageOptions: ParsableArguments {
    @Option(help: "Entries per page (1–10000).") var limit = 100
    @Option(help: "Entries to skip before the page.") var offset = 0

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000.") }
        guard offset >= 0 else { throw ValidationError("--offset must be 0 or more.") }
    }

    /// "Accounts 1–100 of 2,345; --offset 100 for the next." when the page is not the whole list.
    func position(_ noun: String, shown: Int, total: Int) -> String? {
        guard offset + shown < total || offset > 0 else { return nil }
        let range = shown == 0 ? "none" : "\(offset + 1)–\(offset + shown)"
        let next = offset + shown < total ? "; --offset \(offset + shown) for the next" : ""
        return "\(noun) \(range) of \(total)\(next)."
    }

    /// Prints the position: after a table on stdout, beside JSON on stderr (stdout stays one array).
    func printPosition(_ noun: String, shown: Int, total: Int, json: Bool) {
        guard let line = position(noun, shown: shown, total: total) else { return }
        if json {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } else {
            print(line)
        }
    }
}

/// `--mail-spool DIR`, shared by `serve` and `mail`.
struct MailSpoolOptions: ParsableArguments {
    @Option(name: .long, help: "Directory the server writes mail to as .eml files.")
    var mailSpool: String = ProcessInfo.processInfo.environment["UNITI_SERVER_MAIL_SPOOL"] ?? "mail-spool"
}

/// Where mail goes, shared by `serve` and `staff add` (which mails an enrolment link itself):
/// the spool (`--mail-spool`), or SMTP with `--smtp-url` and `--smtp-from`.
struct MailDeliveryOptions: ParsableArguments {
    @OptionGroup var spool: MailSpoolOptions

    @Option(name: .customLong("smtp-url"), help: "Send mail by SMTP instead of the spool, e.g. smtp://mail.example.org:587.")
    var smtpURL: String?

    @Option(name: .customLong("smtp-from"), help: "Sender address for SMTP mail.")
    var smtpFrom: String = "no-reply@uniti.invalid"

    /// SMTP when `--smtp-url` is given, else the spool.
    func mailer() throws -> any Mailer {
        if let smtpURL { return try SMTPMailer(url: smtpURL, sender: smtpFrom) }
        return SpoolMailer(directory: URL(fileURLWithPath: spool.mailSpool))
    }
}

/// Output helpers for the coordinator commands.
enum CommandOutput {
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Prints rows as aligned columns.
    static func table(_ header: [String], _ rows: [[String]]) {
        for line in tableLines(header, rows) { print(line) }
    }

    /// The lines of ``table(_:_:)``: every column as wide as its widest cell, two spaces apart.
    static func tableLines(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { tableLine($0, widths: widths) }
    }

    /// One line of a table whose column widths are known: cells padded to their width, two
    /// spaces apart, the last cell unpadded (for a table streamed line by line).
    static func tableLine(_ cells: [String], widths: [Int]) -> String {
        cells.enumerated().map { index, cell in
            index == cells.count - 1 ? cell : cell.padding(toLength: max(widths[index], cell.count), withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }
}

/// A file a command's option names (`--design`, `--file`), read whole; one line naming the
/// option and the reason when it cannot be.
enum OptionFile {
    static func read(_ path: String, option: String) throws -> Data {
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ValidationError("Cannot read --\(option) '\(path)': \(error.localizedDescription)")
        }
    }
}
