import Foundation
import GRDB
import UNITICore

/// Which events a listing shows and in which order (thesis FR9, outlook: search, filter, sort):
/// a period and a type are asked of the database, the search text is matched here, in any
/// letter case and with umlauts, in the title and the description.
struct EventQuery: Sendable {
    enum Order: String, Sendable, CaseIterable {
        /// Newest first (the default), or oldest first.
        case date, title
    }

    var search: String?
    var type: HealthEvent.Kind?
    var from: LocalDate?
    var to: LocalDate?
    var order: Order = .date
    var oldestFirst = false

    func events(in store: HealthRecordStore, timeZone: TimeZone) throws -> [HealthEvent] {
        if let from, let to, to < from {
            throw UNITIError(L("tn.events.error.period", ["from": "\(from)", "to": "\(to)"]))
        }
        var request = HealthEvent.all()
        if let type { request = request.filter(Column("type") == type.rawValue) }
        if let from { request = request.filter(Column("at") >= from.startInstant(in: timeZone)) }
        if let to { request = request.filter(Column("at") < to.adding(days: 1).startInstant(in: timeZone)) }
        request = request.order(oldestFirst ? Column("at").asc : Column("at").desc, Column("id"))
        var events = try store.database.writer.read { db in try request.fetchAll(db) }
        if let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
            events = events.filter { event in
                event.title.localizedCaseInsensitiveContains(search) || (event.description?.localizedCaseInsensitiveContains(search) ?? false)
            }
        }
        if order == .title {
            // Stable: events of one title stay in time order.
            events = events.sortedStably { CurrentLanguage.value.ordered($0.title, $1.title) }
        }
        return events
    }
}
