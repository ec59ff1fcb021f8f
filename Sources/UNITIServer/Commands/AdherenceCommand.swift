import ArgumentParser
import Foundation
import Synchronization
import UNITIProtocol

/// `uniti-server adherence --study S [--from D --to D] [--below 0.5] [--silent-days 3]
/// [--format table|csv|json]`: per participant pseudonym and questionnaire, the prompts delivered,
/// answered in time, late, missed, open and withdrawn, and the rate, counted from the synced
/// prompt events by the definition the devices use (``PromptFlags``); flags those below a rate
/// and those whose device has sent no prompt event for some days; members of whom no prompt
/// arrived at all get a line without a questionnaire. Streamed: any number of participants
/// needs the memory of one line.
struct AdherenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adherence",
        abstract: "Adherence per participant and questionnaire, from the synced prompt events (see Documentation/adherence.md).")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json
    }

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Study id.") var study: String
    @Option(help: "First day (YYYY-MM-DD, UTC) of the prompts' due times.") var from: String?
    @Option(help: "Last day (YYYY-MM-DD, UTC), included.") var to: String?
    @Option(help: "Flag participants whose rate is below this (0 to 1).") var below: Double?
    @Option(name: .customLong("silent-days"), help: "Flag lines whose prompts' events last arrived this many days ago or longer.")
    var silentDays: Int?
    @Option(help: "Only the participants of this site (see 'sites list').") var site: String?
    @Option(help: "table, csv or json.") var format: Format = .table
    @Option(name: .customLong("as-of"), help: "The moment --silent-days counts back from (YYYY-MM-DDTHH:MM:SSZ; default: now), for a report that can be made again.")
    var asOf: String?

    static func day(_ text: String, option: String) throws -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
              calendar.component(.day, from: date) == parts[2] else {
            throw ValidationError("--\(option) '\(text)' is not a day; write it as YYYY-MM-DD, e.g. 2027-01-15.")
        }
        return date
    }

    func run() async throws {
        if let below, !(0...1).contains(below) { throw ValidationError("--below \(below) is not a rate; give 0 to 1, e.g. 0.5.") }
        if let silentDays, silentDays < 1 { throw ValidationError("--silent-days \(silentDays) is not a number of days; give 1 or more.") }
        let start = try from.map { try Self.day($0, option: "from") }
        let end = try to.map { try Self.day($0, option: "to").addingTimeInterval(86_400) }
        if let start, let end, end <= start { throw ValidationError("--to is before --from.") }
        let now = try asOf.map { text in
            guard let date = Timestamps.parse(text) else {
                throw ValidationError("--as-of '\(text)' is not a time; write it as YYYY-MM-DDTHH:MM:SSZ, e.g. 2027-01-15T08:00:00Z.")
            }
            return date
        } ?? Date()
        let store = try await database.openStore()
        do {
            try await report(store, from: start, to: end, now: now)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    private func report(_ store: ServerStore, from start: Date?, to end: Date?, now: Date) async throws {
        let exports = StudyExports(administration: StudyAdministration(store: store, actor: .operator, now: now))
        _ = try await exports.existingStudy(study, site: site)
        let format = format
        let header = AdherenceReport.header
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let written = Mutex(0)
        // The table is streamed, so its column widths are fixed before the first line: every
        // cell's width is known in advance (a pseudonym is "p-" and 12 digits, the study's
        // questionnaire ids are listed, a rate has four decimals, a time has one format).
        let questionnaireWidth = try await store.questionnaireLinks(studyId: study).map(\.questionnaireId.count).max() ?? 0
        let sites = try await store.sites(studyId: study)
        let known = [SecretTokens.pseudonymLength, questionnaireWidth, 0, 0, 0, 0, 0, 0, "0.0000".count,
                     Timestamps.format(now).count, 0, sites.map(\.id.count).max() ?? 0]
        // The table (for a person) has the site column only when the study has sites; CSV and
        // JSON (for scripts) always have it.
        let shown = sites.isEmpty ? header.count - 1 : header.count
        let widths = Array(zip(header, known).map { max($0.count, $1) }.prefix(shown))
        switch format {
        case .csv: print(CSV.line(header), terminator: "")
        case .table: print(CommandOutput.tableLine(Array(header.prefix(shown)), widths: widths))
        case .json: print("[", terminator: "")
        }
        let flags = AdherenceReport.Flags(below: below, silentFor: silentDays.map { TimeInterval($0) * 86_400 })
        try await exports.adherence(of: study, from: start, to: end, site: site, flags: flags, form: format.rawValue) { line in
            let index = written.withLock { count in defer { count += 1 }; return count }
            switch format {
            case .csv: print(CSV.line(line.cells), terminator: "")
            case .table: print(CommandOutput.tableLine(Array(line.cells.prefix(shown)), widths: widths))
            case .json: print((index == 0 ? "\n" : ",\n") + String(decoding: try encoder.encode(line), as: UTF8.self), terminator: "")
            }
        }
        if format == .json { print(written.withLock { $0 } == 0 ? "]" : "\n]") }
    }
}
