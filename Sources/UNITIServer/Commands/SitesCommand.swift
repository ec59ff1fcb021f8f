import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server sites list|add|assign|hold`: a study's sites (clinical centres), which site a
/// participant belongs to, and which team members are held to one site (Documentation/trials.md).
/// The rules are ``StudySites``', as in the console; the command line acts as an owner.
struct SitesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sites", abstract: "A study's sites: list and add them, put a participant at one, hold a team member to one.",
        subcommands: [List.self, Add.self, Assign.self, Hold.self])

    static func service(_ database: DatabaseOptions) async throws -> StudySites {
        StudySites(administration: StudyAdministration(store: try await database.openStore(), actor: .operator, now: Date()))
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The study's sites with their participants and site-held team members.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String

        func run() async throws {
            let sites = try await SitesCommand.service(database)
            let studyId = try await sites.administration.existingStudy(study).id
            let people = try await sites.store.studyParticipants(studyId: studyId).filter { $0.status == .member }
            let held = try await sites.store.staffSites(studyId: studyId)
            let team = try await sites.store.studyTeam(studyId: studyId)
            let rows = try await sites.store.sites(studyId: studyId).map { site in
                [site.id, site.name, site.country, site.language, String(people.count { $0.site == site.id }),
                 team.filter { held[$0.member.id] == site.id }.map(\.member.email).joined(separator: " ")]
            }
            CommandOutput.table(["SITE", "NAME", "COUNTRY", "LANGUAGE", "MEMBERS", "STAFF"], rows
                                + [["(none)", "", "", "", String(people.count { $0.site == nil }), ""]])
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a site, or change the name, country and language of one (same id); audited.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The site's id (lower-case letters, digits, '-', '_', '.').") var site: String
        @Option(help: "The site's name.") var name: String
        @Option(help: "Its country, two letters (ISO 3166-1: DE, BE, GR, ES).") var country: String
        @Option(help: "Its participants' language, two letters (ISO 639-1: de, nl, el, es).") var language: String

        func run() async throws {
            let changed = try await SitesCommand.service(database).save(StudySite(id: site, name: name, country: country, language: language),
                                                                        studyId: study)
            print(changed ? "\(study): site \(site) saved." : "\(study): site \(site) is so already.")
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a participant at a site, move them to another (an owner's step), or take their site (--none); audited.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The participant's pseudonym.") var participant: String
        @Option(help: "The site's id.") var site: String?
        @Flag(help: "Belong to no site.") var none = false

        func validate() throws {
            guard (site == nil) == none else { throw ValidationError("Give either --site or --none.") }
        }

        func run() async throws {
            let changed = try await SitesCommand.service(database).assign(pseudonym: participant, to: site, studyId: study, by: .everything)
            print(changed ? "\(participant): site \(site ?? "(none)")." : "\(participant) is at \(site ?? "no site") already.")
        }
    }

    struct Hold: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hold a team member (editor or viewer) to one site, so they see and act on its participants only; --none: every site again.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The team member's e-mail address.") var email: String
        @Option(help: "The site's id.") var site: String?
        @Flag(help: "Every site again.") var none = false

        func validate() throws {
            guard (site == nil) == none else { throw ValidationError("Give either --site or --none.") }
        }

        func run() async throws {
            let changed = try await SitesCommand.service(database).hold(email: email, at: site, studyId: study)
            print(changed ? "\(email): \(site.map { "site \($0)" } ?? "every site")." : "\(email) is so already.")
        }
    }
}
