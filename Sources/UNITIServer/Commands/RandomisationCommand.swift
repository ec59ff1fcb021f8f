import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server randomisation setup|show|verify|seed`: a randomised study's design, its
/// allocations, and the statistician's check that every allocation follows from the seed
/// (Documentation/trials.md).
struct RandomisationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "randomisation", abstract: "Set up a study's randomisation, show its allocations, verify them from the seed.",
        subcommands: [Setup.self, Show.self, Verify.self, Seed.self, Blind.self, Unblind.self])

    /// The trials of the store `database` names, as the operator, now.
    static func service(_ database: DatabaseOptions) async throws -> TrialService {
        TrialService(administration: StudyAdministration(store: try await database.openStore(), actor: .operator, now: Date()))
    }

    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store the design (arms, factors, method; JSON, see Documentation/trials.md) with a new secret seed; refused once anyone is randomised.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The design as a JSON file.") var design: String

        func run() async throws {
            let made = try await RandomisationCommand.service(database).setUp(studyId: study, design: try OptionFile.read(design, option: "design"))
            print("\(study): \(made.method.rawValue), arms \(made.arms.map { "\($0.id) (\($0.ratio))" }.joined(separator: ", "))"
                  + (made.factors.isEmpty ? "" : ", factors \(made.factors.map(\.id).joined(separator: ", "))") + "; a new seed is kept by the server.")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The design and the allocations so far: each arm's count, per stratum and overall (--allocations: one line each).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Flag(help: "List every allocation: number, participant, stratum, arm, time.") var allocations = false
        @Flag(help: "Arms by their codes (A, B, …), as blinded staff see them, for the trial's analysts.") var blinded = false

        func run() async throws {
            let trials = try await RandomisationCommand.service(database)
            let trial = try await trials.trial(studyId: study)
            let made = try await trials.store.allocations(studyId: study)
            let design = trial.design, names = ArmNames(trial: trial, blinded: blinded)
            print("\(study): \(design.method.rawValue)" + (design.method == .blocks
                ? ", block multiples \(design.multiples.map(String.init).joined(separator: ", ")) of \(design.round)"
                : ", probability \(design.preference)"))
            let arms = names.ordered.map(\.id)
            var rows = Dictionary(grouping: made, by: \.allocation.stratum).sorted { $0.key < $1.key }.map { stratum, members in
                [stratum] + arms.map { arm in String(members.filter { $0.allocation.arm == arm }.count) }
            }
            rows.append(["all"] + arms.map { arm in String(made.filter { $0.allocation.arm == arm }.count) })
            CommandOutput.table(["STRATUM"] + names.ordered.map { "\(names.id($0.id)) (\($0.ratio))" }, rows)
            if allocations {
                CommandOutput.table(["NUMBER", "PARTICIPANT", "STRATUM", "ARM", "ALLOCATED"], made.map {
                    [String($0.allocation.sequence), $0.pseudonym ?? "(erased)", $0.allocation.stratum, names.id($0.allocation.arm),
                     Timestamps.format($0.allocatedAt)]
                })
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make every allocation again from the seed and report any that differ (exit status 1 if one does).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(name: .customLong("seed-file"), help: "The seed file 'randomisation seed' wrote (default: the seed the server keeps).")
        var seedFile: String?

        func run() async throws {
            let seed = try seedFile.map { try SeedFile.read($0, study: study) }
            let (count, differences) = try await RandomisationCommand.service(database).verify(studyId: study, seed: seed)
            for difference in differences {
                print("allocation \(difference.sequence): recorded \(difference.recorded), the seed gives \(difference.computed)")
            }
            guard differences.isEmpty else {
                throw TrialError("\(differences.count) of \(count) allocation(s) of \(study) differ from what the seed gives")
            }
            print("\(study): all \(count) allocation(s) made again from the seed agree.")
        }
    }

    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the design and the secret seed to a new file (0600) for the trial's statistician; audited.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The file to write (must not exist).") var out: String

        func run() async throws {
            let trials = try await RandomisationCommand.service(database)
            let trial = try await trials.trial(studyId: study)
            let handle = try PrivateFiles.create(out)
            try handle.write(contentsOf: try SeedFile.data(study: study, trial: trial))
            try handle.close()
            try await trials.store.appendAudit(.operator, studyId: study, action: "trial.seed", detail: .object(["file": .string(out)]), now: Date())
            print("\(study): the design and seed are in \(out); anyone holding them can work out every allocation.")
        }
    }

    struct Blind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a member of the study's team blind to allocation: they see arms as codes in the console and its downloads; audited.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The member's e-mail address.") var email: String

        func run() async throws { try await RandomisationCommand.blind(true, database: database, study: study, email: email) }
    }

    struct Unblind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unblind a member of the study's team (audited): they see arms again.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Study id.") var study: String
        @Option(help: "The member's e-mail address.") var email: String

        func run() async throws { try await RandomisationCommand.blind(false, database: database, study: study, email: email) }
    }

    static func blind(_ blinded: Bool, database: DatabaseOptions, study: String, email: String) async throws {
        let (member, changed) = try await service(database).setBlinded(blinded, email: email, studyId: study)
        print(blinded ? "\(member.name) is blind to allocation in \(study)\(changed ? "" : " (was already)")."
                      : "\(member.name) sees the arms of \(study)\(changed ? "" : " (was not blinded)").")
    }
}

/// `uniti-server consort --study S [--format svg|json] [--blinded] [--language L]`: the trial's
/// CONSORT flow now (``TrialFlow``), as the diagram (SVG) or the counts (JSON).
struct ConsortCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consort", abstract: "The CONSORT flow of a randomised study, as an SVG diagram or JSON counts (see Documentation/trials.md).")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Option(help: "svg (the diagram) or json (the counts).") var format: Format = .svg
    @Flag(help: "Arms by their codes (A, B, …), as blinded staff see them.") var blinded = false
    @Option(help: "The diagram's language: en or de.") var language = "en"
    @Option(help: "Count one site's participants only (see 'sites list').") var site: String?

    enum Format: String, ExpressibleByArgument, CaseIterable { case svg, json }

    func validate() throws {
        guard PortalText.languages.contains(language) else {
            throw ValidationError("--language '\(language)': one of \(PortalText.languages.joined(separator: ", ")).")
        }
    }

    func run() async throws {
        let flow = try await RandomisationCommand.service(database).flow(studyId: study, blinded: blinded, site: site, now: Date())
        print(format == .json ? try flow.json() : ConsortDiagram.svg(flow, language: language), terminator: "")
    }
}

/// The statistician's file: the study, the design and the seed (base64).
enum SeedFile {
    struct Contents: Codable {
        var study: String
        var design: TrialDesign
        var seed: String
    }

    static func data(study: String, trial: StoredTrial) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Contents(study: study, design: trial.design, seed: trial.seed.base64EncodedString()))
    }

    static func read(_ path: String, study: String) throws -> Data {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)),
              let contents = try? JSONDecoder().decode(Contents.self, from: data),
              let seed = Data(base64Encoded: contents.seed), seed.count == 32 else {
            throw ValidationError("--seed-file '\(path)' is not a seed file written by 'randomisation seed'.")
        }
        guard contents.study == study else { throw ValidationError("--seed-file '\(path)' is the seed of \(contents.study), not of \(study).") }
        return seed
    }
}

/// `uniti-server randomise --study S --participant P [--level FACTOR=LEVEL …]`: randomises a
/// consenting member whose stratification data are complete (the levels read from their answers,
/// the others entered here); prints the allocation. Final: a participant is randomised once.
struct RandomiseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "randomise", abstract: "Randomise a participant of a randomised study (final; see Documentation/trials.md).")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Option(help: "The participant's pseudonym.") var participant: String
    @Option(name: .customLong("level"), help: ArgumentHelp("A level entered by staff, as FACTOR=LEVEL (repeat for each).", valueName: "factor=level"))
    var levels: [String] = []

    func run() async throws {
        var entered: [String: String] = [:]
        for text in levels {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--level '\(text)' is not FACTOR=LEVEL, e.g. hearing=aid.")
            }
            guard entered[parts[0]] == nil else { throw ValidationError("--level names \(parts[0]) twice.") }
            entered[parts[0]] = parts[1]
        }
        let allocation = try await RandomisationCommand.service(database).randomise(studyId: study, pseudonym: participant, entered: entered)
        print("\(participant): allocation \(allocation.sequence), stratum \(allocation.stratum), arm \(allocation.arm).")
    }
}

/// `uniti-server visits --study S [--csv]`: each participant's visits (state and when done), then
/// per arm and visit how many are in each state.
struct VisitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visits", abstract: "The visits of a randomised study: each participant's, then each arm's completion (see Documentation/trials.md).")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Flag(help: "One CSV line per participant and visit instead of the tables.") var csv = false
    @Option(help: "Only the participants of this site (see 'sites list').") var site: String?

    func run() async throws {
        let trials = try await RandomisationCommand.service(database)
        let design = try await trials.trial(studyId: study).design
        let people = try await trials.visits(studyId: study, site: site, now: Date())
        guard let visits = design.visits, !visits.isEmpty else { throw TrialError("the design of \(study) has no visits") }
        if csv {
            print(CSV.line(["participant", "arm", "visit", "state", "opens_utc", "closes_utc", "done_utc", "site"]), terminator: "")
            for person in people {
                for status in person.visits {
                    print(CSV.line([person.pseudonym, person.arm ?? "", status.visit.id, status.state.rawValue, status.opens.map(Timestamps.format) ?? "",
                                    status.closes.map(Timestamps.format) ?? "", status.doneAt.map(Timestamps.format) ?? "", person.site ?? ""]),
                          terminator: "")
                }
            }
            return
        }
        CommandOutput.table(["PARTICIPANT", "ARM"] + visits.map { $0.id.uppercased() }, people.map { person in
            [person.pseudonym, person.arm ?? "-"] + person.visits.map(\.state.rawValue)
        })
        print("")
        let states = VisitStatus.State.allCases
        var rows: [[String]] = []
        for arm in design.arms.map(\.id) + ["-"] {
            let members = people.filter { ($0.arm ?? "-") == arm }
            guard !members.isEmpty else { continue }
            for (index, visit) in visits.enumerated() {
                rows.append([arm, visit.id] + states.map { state in String(members.filter { $0.visits[index].state == state }.count) })
            }
        }
        CommandOutput.table(["ARM", "VISIT"] + states.map { $0.rawValue.uppercased() }, rows)
    }
}
