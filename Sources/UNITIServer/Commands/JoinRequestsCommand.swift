import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server join-requests list|approve|deny`: the coordinator decides on by-request studies.
struct JoinRequestsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join-requests", abstract: "Decide on requests to join by-request studies.",
        subcommands: [List.self, Approve.self, Deny.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List join requests (pending unless --all), oldest first, a page at a time (--limit, --offset).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this study.") var study: String?
        @Flag(help: "Also decided requests.") var all = false
        @OptionGroup var page: PageOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let store = try await database.openStore()
            let stored = try await store.joinRequests(studyId: study, pendingOnly: !all, offset: page.offset, limit: page.limit)
            if json {
                try CommandOutput.json(stored.requests)
            } else {
                CommandOutput.table(["STUDY", "USER", "STATUS", "REQUESTED"], stored.requests.map {
                    [$0.studyId, $0.username, $0.status.rawValue, Timestamps.format($0.requestedAt)]
                })
            }
            page.printPosition("Requests", shown: stored.requests.count, total: stored.total, json: json)
        }
    }

    static func decide(database: DatabaseOptions, study: String, username: String, status: MembershipStatus) async throws {
        let store = try await database.openStore()
        guard let account = try await store.user(login: username) else { throw ValidationError("No user '\(username)'.") }
        try await StudyAdministration(store: store, actor: .operator, now: Date())
            .decideJoinRequest(studyId: study, userId: account.id, status: status)
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
        /// The newest consent version agreed to, by study id.
        var consents: [String: Int]
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List accounts in the order they were made, a page at a time (--limit, --offset).")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var page: PageOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let store = try await database.openStore()
            let stored = try await store.users(offset: page.offset, limit: page.limit)
            var rows: [Row] = []
            for user in stored.users {
                rows.append(Row(username: user.username, email: user.email, pseudonym: user.pseudonym, activated: user.activated,
                                active: user.active, createdAt: Timestamps.format(user.createdAt),
                                consents: try await store.agreedConsentVersions(userId: user.id)))
            }
            if json {
                try CommandOutput.json(rows)
            } else {
                CommandOutput.table(["USERNAME", "E-MAIL", "PSEUDONYM", "ACTIVATED", "ACTIVE", "CREATED", "CONSENT"], rows.map {
                    [$0.username, $0.email, $0.pseudonym, $0.activated ? "yes" : "no", $0.active ? "yes" : "no", $0.createdAt,
                     $0.consents.sorted { $0.key < $1.key }.map { "\($0.key) v\($0.value)" }.joined(separator: ", ")]
                })
            }
            page.printPosition("Accounts", shown: rows.count, total: stored.total, json: json)
        }
    }
}
