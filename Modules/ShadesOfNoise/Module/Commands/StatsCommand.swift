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
    @Option(help: ArgumentHelp(L("son.stats.sortHelp"), valueName: "name|plays|rating|time")) var sort = "name"
    @Flag(help: ArgumentHelp(L("son.option.json"))) var json = false

    struct Recent: Encodable {
        let sound: String, title: String, startedAt: Date, listenedSeconds: Double
        let loop: String?, rating: Int?, ending: String
    }
    struct Report: Encodable {
        let recent: [Recent]
        let sounds: [ListeningStatistics.SoundSummary]
    }

    func run(in context: ModuleContext) throws {
        guard let order = ListeningStatistics.Order(rawValue: sort) else {
            throw UNITIError(L("son.stats.badSort", ["value": sort]))
        }
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
        let rows = statistics.sorted(by: order)
        if json || context.services.prefersJSON {
            try context.console.json(Report(recent: recent, sounds: rows))
            return
        }
        let console = context.console
        let formatter = DateFormatter()
        formatter.timeZone = context.clock.timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        console.line(L(all ? "son.stats.allHeader" : "son.stats.recentHeader"))
        if recent.isEmpty { console.line("  " + L("son.stats.noSessions")) }
        for entry in recent {
            let rating: String
            switch entry.ending {
            case "rated": rating = entry.rating.map { "\($0) " + CGIRating.label($0) } ?? "?"
            case "timedOut": rating = L("son.cgi.timedOutShort")
            default: rating = L("son.cgi.none")
            }
            console.line("  \(formatter.string(from: entry.startedAt))  \(formatDuration(entry.listenedSeconds).padding(toLength: 8, withPad: " ", startingAt: 0))  \(entry.title) — \(rating)")
        }
        console.line()
        console.line(L("son.stats.perSoundHeader"))
        console.line("  " + L("son.stats.columns"))
        for row in rows {
            let mean = row.meanRating.map { String(format: "%.1f", $0) } ?? "–"
            console.line("  " + row.title.padding(toLength: 40, withPad: " ", startingAt: 0)
                + String(row.plays).leftPadded(6) + String(row.ratings).leftPadded(8) + mean.leftPadded(7)
                + formatDuration(row.listenedSeconds).leftPadded(10))
        }
        console.line(L("son.stats.lowerIsBetter"))
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
