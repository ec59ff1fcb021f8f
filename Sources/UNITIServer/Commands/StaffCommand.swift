import ArgumentParser
import Foundation

/// `uniti-server staff add|list|role`: the study teams' accounts for the console (`/console`).
/// The first administrator is made here; after that, administrators and owners work in the
/// console, and every change is in the audit trail as this machine's operator.
struct StaffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "staff", abstract: "Add study team members to the console and give them roles.",
        subcommands: [Add.self, Link.self, List.self, Role.self, Unassign.self, Disable.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a staff member and mail them a one-time link to set a password and a second factor (TOTP).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The member's name as the team knows it.") var name: String
        @Option(help: "Their e-mail address (the sign-in name).") var email: String
        @Flag(help: "An administrator: creates studies and appoints owners.") var admin = false
        @Option(help: ArgumentHelp("The language of their mails until they sign in to the console (then the console's): \(PortalText.languages.joined(separator: ", ")); without it the enrolment mail is in English and German.", valueName: "code"))
        var language: String?
        @OptionGroup var mail: MailDeliveryOptions
        @Option(name: .customLong("public-url"), help: "Where the server is reached, e.g. https://study.example.org: the mail then links to the page.")
        var publicURL: String?

        func run() async throws {
            let store = try await database.openStore()
            let mailer = try mail.mailer()
            let environment = ServerEnvironment(store: store, mailer: mailer, publicURL: publicURL.flatMap(ServeCommand.portalBase))
            do {
                let added = try await StaffService(environment: environment).add(name: name, email: email, admin: admin, language: language, by: .operator)
                try await mailer.send(added.mail)
                print("Added \(name) <\(added.mail.to)>\(admin ? " as an administrator" : ""); the enrolment link is mailed.")
            } catch StoreConflict.emailTaken {
                throw ValidationError("\(email) has a staff account already; see 'staff list'.")
            } catch let error as APIError {
                throw ValidationError(error.message)
            }
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mail a staff member a new enrolment link: for a link that expired, or a lost phone (enrolling again replaces password, second factor and recovery codes, and ends the member's sessions).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The member's e-mail address.") var email: String
        @OptionGroup var mail: MailDeliveryOptions
        @Option(name: .customLong("public-url"), help: "Where the server is reached, e.g. https://study.example.org: the mail then links to the page.")
        var publicURL: String?

        func run() async throws {
            let store = try await database.openStore()
            guard let member = try await store.staffMember(email: email) else { throw ValidationError("No staff member '\(email)'; see 'staff list'.") }
            let mailer = try mail.mailer()
            let environment = ServerEnvironment(store: store, mailer: mailer, publicURL: publicURL.flatMap(ServeCommand.portalBase))
            let link = try await StaffService(environment: environment).newEnrolmentLink(for: member, by: .operator)
            try await mailer.send(link)
            print("Mailed \(member.name) <\(member.email)> a new enrolment link; older links no longer work.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List staff members and their roles.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let store = try await database.openStore()
            var rows: [[String]] = []
            for member in try await store.staffMembers() {
                let roles = try await store.studyRoles(staffId: member.id).sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.rawValue)" }
                rows.append([String(member.id), member.email, member.name, member.admin ? "yes" : "no",
                             member.enrolled ? "yes" : "no", member.language ?? "-", roles.joined(separator: ",")])
            }
            CommandOutput.table(["ID", "EMAIL", "NAME", "ADMIN", "ENROLLED", "LANGUAGE", "ROLES"], rows)
        }
    }

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a staff member a role in a study (owner, editor, statistician or viewer).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var study: String
        @Argument(help: "The member's e-mail address.") var email: String
        @Argument(help: "owner, editor, statistician or viewer.") var role: StudyRole

        func run() async throws {
            let store = try await database.openStore()
            guard let member = try await store.staffMember(email: email) else { throw ValidationError("No staff member '\(email)'; see 'staff list'.") }
            try await StudyAdministration(store: store, actor: .operator, now: Date()).setRole(role, of: member, in: study)
            print("\(member.name) is \(role.rawValue) of \(study).")
        }
    }
    struct Unassign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a staff member's role in a study away.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Study id.") var study: String
        @Argument(help: "The member's e-mail address.") var email: String

        func run() async throws {
            let store = try await database.openStore()
            guard let member = try await store.staffMember(email: email) else { throw ValidationError("No staff member '\(email)'; see 'staff list'.") }
            guard try await StudyAdministration(store: store, actor: .operator, now: Date()).removeRole(of: member, in: study) else {
                throw ValidationError("\(member.name) has no role in '\(study)'; see 'staff list'.")
            }
            print("\(member.name) has no role in \(study) any more.")
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close a staff member's access at once: sessions ended, password and second factor forgotten, every role taken away ('staff link' lets them enrol again).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The member's e-mail address.") var email: String

        func run() async throws {
            let store = try await database.openStore()
            guard let member = try await store.staffMember(email: email) else { throw ValidationError("No staff member '\(email)'; see 'staff list'.") }
            let studies = try await StudyAdministration(store: store, actor: .operator, now: Date()).disable(member)
            let roles = studies.joined(separator: ", ")
            print(studies.isEmpty ? "\(member.name) can no longer sign in." : "\(member.name) can no longer sign in; roles taken away in \(roles).")
        }
    }
}

extension StudyRole: ExpressibleByArgument {}

/// `uniti-server audit [--study S] [--json]`: a study's audit trail, or without `--study` every
/// line (every study's, and the staff accounts' own), oldest first.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit trail: every change and export, who made it and when (one study's with --study; else all, staff accounts' own lines too).")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let store = try await database.openStore()
        let lines = if let study { try await store.auditTrail(studyId: study) } else { try await store.auditTrail() }
        if json { return try CommandOutput.json(lines) }
        CommandOutput.table(["TIME", "WHO", "STUDY", "ACTION", "DETAIL"], lines.map {
            [Timestamps.format($0.at), $0.actorText, $0.studyId ?? "", $0.action, (try? JSONCoding.string($0.detail)) ?? ""]
        })
    }
}
