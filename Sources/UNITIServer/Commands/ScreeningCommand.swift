import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server screening set|show|remove|log`: a study's eligibility screening (the
/// questionnaire asked before joining and its rules, ``StudyScreening``) and its log
/// (Documentation/trials.md, "Eligibility screening"). The command line acts as an owner.
struct ScreeningCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screening", abstract: "A study's eligibility screening before joining: set, show or remove it, read its log.",
        subcommands: [Set.self, Show.self, Remove.self, Log.self])

    static func administration(_ database: DatabaseOptions) async throws -> StudyAdministration {
        StudyAdministration(store: try await database.openStore(), actor: .operator, now: Date())
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Screen everyone who joins with a questionnaire of the study and rules over its answers (JSON); audited.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The screening as a JSON file.") var file: String

        func run() async throws {
            let administration = try await ScreeningCommand.administration(database)
            let screening = try await StudyScreening.save(try OptionFile.read(file, option: "file"), studyId: study, administration: administration)
            print("\(study): joining asks \(screening.questionnaire) first; \(screening.rules.count) rule(s): "
                  + screening.rules.map { "\($0.id) (\($0.condition))" }.joined(separator: "; ") + ".")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The study's screening: its questionnaire and rules, as JSON.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String

        func run() async throws {
            let administration = try await ScreeningCommand.administration(database)
            let studyId = try await administration.existingStudy(study).id
            guard let screening = try await administration.store.screening(studyId: studyId) else {
                print("\(studyId) does not screen: anyone may join as its access allows.")
                return
            }
            print(try StudyScreening.json(screening), terminator: "")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Join without screening from now on (the log stays); audited.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String

        func run() async throws {
            let administration = try await ScreeningCommand.administration(database)
            let studyId = try await administration.existingStudy(study).id
            let changed = try await administration.store.setScreening(nil, studyId: studyId, actor: administration.actor, now: administration.now)
            print(changed ? "\(studyId) screens no more." : "\(studyId) does not screen.")
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The screening log: screened, eligible and ineligible by rule (--csv: one line per screening, no names).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "Only the screenings of this site's enrolment link or code.") var site: String?
        @Flag(help: "One CSV line per screening: time, site, outcome, the rules not met, whether the answers were kept.") var csv = false

        func run() async throws {
            let administration = try await ScreeningCommand.administration(database)
            let studyId = try await administration.existingStudy(study).id
            if let site, try await !administration.store.sites(studyId: studyId).contains(where: { $0.id == site }) {
                throw APIError.invalid("unknown_site", "\(studyId) has no site \(site.prefix(64)).")
            }
            let entries = try await administration.store.screenings(studyId: studyId, site: site)
            if csv {
                var text = CSV.line(["screened_at", "site", "eligible", "rules_not_met", "answers_kept"])
                for entry in entries {
                    text += CSV.line([Timestamps.format(entry.screenedAt), entry.site ?? "", entry.eligible ? "1" : "0",
                                      entry.failed.joined(separator: " "), entry.answers == nil ? "0" : "1"])
                }
                print(text, terminator: "")
                return
            }
            let rules = try await administration.store.screening(studyId: studyId)?.rules.map(\.id) ?? []
            let counts = ScreeningCounts(entries, rules: rules)
            print("\(studyId)\(site.map { ", site \($0)" } ?? ""): \(counts.screened) screened, \(counts.eligible) eligible, "
                  + "\(counts.ineligible) not eligible (answers kept for \(counts.answersKept)).")
            if !counts.byRule.isEmpty {
                CommandOutput.table(["RULE", "NOT MET"], counts.byRule.map { [$0.rule, String($0.count)] })
            }
        }
    }
}
