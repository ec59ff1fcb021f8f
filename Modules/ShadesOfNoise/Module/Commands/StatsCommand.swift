import ArgumentParser
import Foundation
import UNITICore

/// `son stats [--all] [--sort name|plays|rating|time] [--json]`: the sessions heard last (five,
/// or all) and per sound plays, ratings, mean rating and listening time (FA11–FA13).
struct StatsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "stats", abstract: L("son.stats.abstract"))
    }

    @Flag(help: ArgumentHelp(L("son.stats.allHelp"))) var all = false
    @Option(help: ArgumentHelp(L("son.stats.sortHelp"), valueName: "name|plays|rating|time")) var sort = ListeningStatistics.Order.name
    @OptionGroup var output: JSONOutput

    struct Recent: Encodable {
        let sound: String, title: String, startedAt: Date, listenedSeconds: Double
        let loop: String?, rating: Int?, ending: String
    }
    struct Report: Encodable {
        let recent: [Recent]
        let sounds: [ListeningStatistics.SoundSummary]
    }

    func run(in context: ModuleContext) throws {
        let catalogue = try SoundCatalogue.active(in: context.database)
        let store = SonStore(records: context.records)
        let sessions = try store.sessions()
        let titles = catalogue.sounds.map { (id: $0.id, title: $0.displayTitle) }
        let statistics = ListeningStatistics(sessions: sessions, catalogue: titles)
        let titleOf = Dictionary(titles.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
        let recent = (all ? sessions : Array(sessions.prefix(5))).map {
            Recent(sound: $0.sound, title: titleOf[$0.sound] ?? $0.sound, startedAt: $0.startedAt,
                   listenedSeconds: $0.listenedSeconds, loop: $0.loop, rating: $0.rating, ending: $0.ending)
        }
        let rows = statistics.sorted(by: sort)
        if output.isRequested(in: context) {
            try context.console.json(Report(recent: recent, sounds: rows))
            return
        }
        let console = context.console
        let formatter = DateFormatter()
        formatter.timeZone = context.clock.timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        console.line(L(all ? "son.stats.allHeader" : "son.stats.recentHeader"))
        if recent.isEmpty { console.line("  " + L("son.stats.noSessions")) }
        // Durations in the width they always had.
        console.table(TextTable(columns: [.left, .init(minimumWidth: 8)], rows: recent.map { entry in
            let rating: String
            switch entry.ending {
            case "rated": rating = entry.rating.map { "\($0) " + CGIRating.label($0) } ?? "?"
            case "timedOut": rating = L("son.cgi.timedOutShort")
            default: rating = L("son.cgi.none")
            }
            return [formatter.string(from: entry.startedAt), formatDuration(entry.listenedSeconds), "\(entry.title) — \(rating)"]
        }))
        console.line()
        console.line(L("son.stats.perSoundHeader"))
        let header = [L("son.stats.column.sound"), L("son.stats.column.plays"), L("son.stats.column.ratings"),
                      L("son.stats.column.mean"), L("son.stats.column.time")]
        console.table(TextTable(columns: [.left, .right, .right, .right, .right], header: header, rows: rows.map { row in
            [row.title, "\(row.plays)", "\(row.ratings)", row.meanRating.map { context.localizer.language.number($0, fractionDigits: 1) } ?? "–",
             formatDuration(row.listenedSeconds)]
        }))
        console.line(L("son.stats.lowerIsBetter"))
    }
}

/// `--sort name|plays|rating|time`.
extension ListeningStatistics.Order: ExpressibleByArgument {}
