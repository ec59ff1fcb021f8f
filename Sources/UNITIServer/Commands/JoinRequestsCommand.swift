import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server join-requests list|approve|deny`: the coordinator decides on by-request studies.
struct JoinRequestsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join-requests", abstract: "Decide on requests to join by-request studies.",
        subcommands: [List.self, Approve.self, Deny.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List join requests (pending unless --all).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this study.") var study: String?
        @Flag(help: "Also decided requests.") var all = false
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let store = try await database.openStore()
            let requests = try await store.joinRequests(studyId: study).filter { all || $0.status == .pending }
            if json { return try CommandOutput.json(requests) }
            CommandOutput.table(["STUDY", "USER", "STATUS", "REQUESTED"], requests.map {
                [$0.studyId, $0.username, $0.status.rawValue, Timestamps.format($0.requestedAt)]
            })
        }
    }

    static func decide(database: DatabaseOptions, study: String, username: String, status: MembershipStatus) async throws {
        let store = try await database.openStore()
        guard let account = try await store.user(login: username) else { throw ValidationError("No user '\(username)'.") }
        let current = try await store.membership(studyId: study, userId: account.id)
        guard current == .pending || current == .denied || (current == .member && status == .denied) else {
            throw ValidationError("\(account.username) has no request for study '\(study)' (status: \(current.rawValue)).")
        }
        try await store.setMembership(studyId: study, userId: account.id, status: status, now: Date())
        print("\(account.username) in \(study): \(status.rawValue).")
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Approve a request.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var study: String
        @Argument(help: "Username or e-mail.") var user: String
        func run() async throws { try await decide(database: database, study: study, username: user, status: .member) }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny a request.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var study: String
        @Argument(help: "Username or e-mail.") var user: String
        func run() async throws { try await decide(database: database, study: study, username: user, status: .denied) }
    }
}

/// `uniti-server users list`.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "users", abstract: "Inspect accounts.", subcommands: [List.self])

    struct Row: Codable {
        var username: String
        var email: String
        var pseudonym: String
        var activated: Bool
        var active: Bool
        var createdAt: String
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List accounts in the order they were made, a page at a time (--limit, --offset).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Accounts per page (1–10000).") var limit = 100
        @Option(help: "Accounts to skip before the page.") var offset = 0
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000.") }
            guard offset >= 0 else { throw ValidationError("--offset must be 0 or more.") }
        }

        func run() async throws {
            let page = try await database.openStore().users(offset: offset, limit: limit)
            let rows = page.users.map {
                Row(username: $0.username, email: $0.email, pseudonym: $0.pseudonym, activated: $0.activated,
                    active: $0.active, createdAt: Timestamps.format($0.createdAt))
            }
            // Where the page lies in the whole list: on stderr beside JSON, which stays one array.
            var position: String?
            if offset + rows.count < page.total || offset > 0 {
                let shown = rows.isEmpty ? "none" : "\(offset + 1)–\(offset + rows.count)"
                let next = offset + rows.count < page.total ? "; --offset \(offset + rows.count) for the next" : ""
                position = "Accounts \(shown) of \(page.total)\(next)."
            }
            if json {
                try CommandOutput.json(rows)
                if let position { FileHandle.standardError.write(Data((position + "\n").utf8)) }
                return
            }
            CommandOutput.table(["USERNAME", "E-MAIL", "PSEUDONYM", "ACTIVATED", "ACTIVE", "CREATED"], rows.map {
                [$0.username, $0.email, $0.pseudonym, $0.activated ? "yes" : "no", $0.active ? "yes" : "no", $0.createdAt]
            })
            if let position { print(position) }
        }
    }
}
