import Foundation
import Hummingbird
import TinnitusNavigatorShared
import UNITIProtocol
import UNITIServer

/// The TinnitusNavigator health record in the browser: events, therapies and audiograms as the
/// same synced records the shell keeps (``PortalHealthRecord``), checked by the same rules
/// (``HealthRecordProblem``, from `TinnitusNavigatorShared`) and worded by the portal's strings.
///
/// Topics: the overview; one list, form and delete confirmation per kind; the audiogram page and
/// its picture. Every page is in the signed-in group (``RequirePortalSignIn``), every change is a
/// POST with the CSRF field (``PortalCSRFCheck``), and an id that is not one of the person's
/// entries is a 404, whoever's it is. The view models are in `RecordPageModels.swift`.
///
/// The audiogram picture is the module's SVG (`AudiogramSVG`), served from a route of its own as
/// `image/svg+xml` and shown with `<img>`: templates only ever print escaped values, so the
/// markup never passes through them, and an SVG shown as an image runs no script and fetches
/// nothing, whatever it contains.
extension PortalRoutes {
    package func registerRecordPages(on group: RouterGroup<ParticipantContext>) {
        group.get("record") { _, context in try await recordOverview(context) }
        for kind in RecordPageKind.allCases {
            group.get("record/\(kind.path)") { request, context in try await recordList(kind, request, context) }
            group.get("record/\(kind.path)/new") { _, context in try await recordForm(kind, id: nil, context) }
            group.post("record/\(kind.path)") { request, context in try await recordSave(kind, id: nil, request, context) }
            group.get("record/\(kind.path)/:id/edit") { _, context in try await recordForm(kind, id: context.parameters.get("id"), context) }
            group.post("record/\(kind.path)/:id") { request, context in
                try await recordSave(kind, id: context.parameters.get("id"), request, context)
            }
            group.get("record/\(kind.path)/:id/delete") { _, context in
                try await recordDeletion(kind, id: context.parameters.get("id"), context)
            }
            group.post("record/\(kind.path)/:id/delete") { _, context in
                try await recordDelete(kind, id: context.parameters.get("id"), context)
            }
        }
        // `/record/audiograms/<id>` is the page, `/record/audiograms/<id>.svg` its picture.
        group.get("record/audiograms/:id") { request, context in
            try await audiogramPage(context.parameters.get("id") ?? "", request, context)
        }
    }

    // MARK: Reading

    private func healthRecord(_ session: PortalSession) -> PortalHealthRecord {
        PortalHealthRecord(store: environment.store, clock: environment.clock, userId: session.account.id)
    }

    private static func notFound() -> PortalRefusal { PortalRefusal(status: .notFound, messageKey: "portal.record.error.notFound") }

    /// The record's notice after a redirect (`?done=saved`), only from the record's own strings.
    private func recordNotice(_ request: Request, _ language: String) -> String? {
        guard let name = request.uri.queryParameters["done"].map(String.init), ["saved", "deleted"].contains(name) else { return nil }
        return PortalText.text("portal.record.notice.\(name)", language)
    }

    private func recordOverview(_ context: ParticipantContext) async throws -> Response {
        let visit = context.visit
        let record = healthRecord(context.participant)
        let events = try await record.entries(HealthEvent.self)
        let therapies = try await record.entries(Therapy.self)
        let audiograms = try await record.entries(Audiogram.self)
        let today = visit.recordClock.day(environment.clock.now())
        let text = { (key: String, values: [String: String]) in PortalText.text("portal.record.overview.\(key)", visit.language, values) }
        var overview = RecordOverviewPage(
            events: text("events", ["count": "\(events.count)"]),
            therapies: text("therapies", ["count": "\(therapies.count)", "ongoing": "\(therapies.filter { $0.isOngoing(on: today) }.count)"]),
            audiograms: text("audiograms", ["count": "\(audiograms.count)"]))
        if let latest = Self.newestFirst(events).first {
            overview.latestEvent = text("latestEvent", ["title": latest.title, "at": visit.recordClock.minute(latest.at)])
        }
        if let latest = Self.newestFirst(audiograms).first {
            overview.latestAudiogram = text("latestAudiogram", ["date": latest.date, "grade": gradeText(latest, visit.language)])
        }
        return try page(overview, visit)
    }

    private func recordList(_ kind: RecordPageKind, _ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit
        let record = healthRecord(context.participant)
        let language = visit.language
        let notice = recordNotice(request, language)
        // One page of `all` (already in its order) as the kind's list shows it.
        func list<Entry, Row: Sendable>(_ all: [Entry], _ row: (Entry) -> Row) throws -> Response {
            let paging = PortalPaging(request, total: all.count)
            return try page(RecordListPage(kind: kind, entries: paging.slice(all).map(row), empty: all.isEmpty,
                                           paging: paging.pager(path: "/record/\(kind.path)", language: language)),
                            visit, notice: notice)
        }
        switch kind {
        case .events:
            return try list(Self.newestFirst(try await record.entries(HealthEvent.self))) { event in
                RecordEventRow(id: event.id, title: event.title, at: visit.recordClock.minute(event.at),
                               type: PortalText.text("portal.record.eventType.\(event.type.rawValue)", language),
                               description: event.description)
            }
        case .therapies:
            let today = visit.recordClock.day(environment.clock.now())
            return try list(try await record.entries(Therapy.self).sorted { ($0.start, $0.id) > ($1.start, $1.id) }) { therapy in
                RecordTherapyRow(id: therapy.id, name: therapy.name, start: therapy.start,
                                 type: PortalText.text("portal.record.therapyType.\(therapy.type.rawValue)", language),
                                 ongoing: therapy.isOngoing(on: today), end: therapy.end, note: therapy.note)
            }
        case .audiograms:
            return try list(Self.newestFirst(try await record.entries(Audiogram.self))) { audiogram in
                RecordAudiogramRow(id: audiogram.id, date: audiogram.date, left: Self.average(audiogram, .left, language),
                                   right: Self.average(audiogram, .right, language), grade: gradeText(audiogram, language))
            }
        }
    }

    private func audiogramPage(_ name: String, _ request: Request, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit
        let picture = name.hasSuffix(".svg")
        let id = picture ? String(name.dropLast(4)) : name
        guard let audiogram = try await healthRecord(context.participant).entry(Audiogram.self, id: id) else {
            throw Self.notFound()
        }
        let language = visit.language
        let label = { (key: String) in PortalText.text("portal.record.picture.\(key)", language, ["date": audiogram.date]) }
        let plot = AudiogramPlot(audiogram, labels: AudiogramPlot.Labels(
            title: label("title"), frequencyAxis: label("frequency"), levelAxis: label("level"), right: label("right"),
            left: label("left"), discomfort: label("discomfort"), tinnitus: label("tinnitus")))
        let renderer = AudiogramSVG(fitting: plot)
        if picture {
            return Response(status: .ok, headers: [.contentType: "image/svg+xml; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: renderer.document(plot))))
        }
        let rows = audiogram.thresholds.map { values in
            AudiogramPage.Threshold(hz: "\(values.hz)", left: values.left.map { "\($0)" } ?? "–", right: values.right.map { "\($0)" } ?? "–")
        }
        let shown = AudiogramPage(
            id: audiogram.id, date: audiogram.date, note: audiogram.note, rows: rows,
            left: Self.average(audiogram, .left, language), right: Self.average(audiogram, .right, language), grade: gradeText(audiogram, language),
            width: MarkupText.number(renderer.geometry.width), height: MarkupText.number(renderer.geometry.height), alt: label("title"))
        return try page(shown, visit, notice: recordNotice(request, language))
    }

    static func newestFirst(_ events: [HealthEvent]) -> [HealthEvent] {
        events.sorted { ($0.at, $0.id) > ($1.at, $1.id) }
    }

    static func newestFirst(_ audiograms: [Audiogram]) -> [Audiogram] {
        func day(_ audiogram: Audiogram) -> Int {
            RecordDay.components(audiogram.date).map { $0.year * 10_000 + $0.month * 100 + $0.day } ?? 0
        }
        return audiograms.sorted { (day($0), $0.id) > (day($1), $1.id) }
    }

    /// An ear's pure-tone average to one decimal in the visitor's language (`28,8` in German),
    /// `–` when it cannot be told.
    static func average(_ audiogram: Audiogram, _ ear: Ear, _ language: String) -> String {
        PureToneAverage.of(audiogram, ear: ear).map { PortalText.number($0, language, fractionDigits: 1) } ?? "–"
    }

    func gradeText(_ audiogram: Audiogram, _ language: String) -> String {
        HearingLossGrade.overall(audiogram).map { PortalText.text("portal.record.grade.\($0.rawValue)", language) }
            ?? PortalText.text("portal.record.grade.unknown", language)
    }

    // MARK: Forms

    private func recordForm(_ kind: RecordPageKind, id: String?, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit
        let record = healthRecord(context.participant)
        var draft = RecordFormDraft(kind: kind, id: id, language: visit.language, clock: visit.recordClock)
        if let id {
            switch kind {
            case .events:
                guard let event = try await record.entry(HealthEvent.self, id: id) else { throw Self.notFound() }
                draft.fill(event)
            case .therapies:
                guard let therapy = try await record.entry(Therapy.self, id: id) else { throw Self.notFound() }
                draft.fill(therapy)
            case .audiograms:
                guard let audiogram = try await record.entry(Audiogram.self, id: id) else { throw Self.notFound() }
                draft.fill(audiogram)
            }
        } else if kind == .events {
            draft.fields["at"] = visit.recordClock.inputMinute(environment.clock.now())
        } else {
            draft.fields[kind == .therapies ? "start" : "date"] = visit.recordClock.day(environment.clock.now())
        }
        return try page(draft.page(), visit)
    }

    /// Checks the posted form by the shared rules; saves only when nothing is wrong, else shows
    /// the form again with what was typed and each problem beside its field.
    private func recordSave(_ kind: RecordPageKind, id: String?, _ request: Request, _ context: ParticipantContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.visit
        let record = healthRecord(context.participant)
        var draft = RecordFormDraft(kind: kind, id: id, language: visit.language, clock: visit.recordClock, form: form)
        let now = environment.clock.now()
        let saved: String? = switch kind {
        case .events:
            try await saveEntry(HealthEvent.self, id: id, record) { draft.event(id: $0, createdAt: $1?.createdAt, now: now) }
        case .therapies:
            try await saveEntry(Therapy.self, id: id, record) { draft.therapy(id: $0, createdAt: $1?.createdAt, now: now) }
        case .audiograms:
            try await saveEntry(Audiogram.self, id: id, record) { draft.audiogram(id: $0, keeping: $1, now: now) }
        }
        if let saved {
            // An audiogram is shown with its picture; the others in their list.
            return visit.redirect(to: kind == .audiograms ? "/record/audiograms/\(saved)?done=saved" : "/record/\(kind.path)?done=saved")
        }
        return try page(draft.page(), visit, status: .unprocessableContent,
                        error: PortalText.text("portal.record.error.notSaved", visit.language))
    }

    /// Saves the entry `make` builds from the id and the stored version (nil for a new one);
    /// returns its id, or nil when `make` found problems. A 404 when `id` names no entry of
    /// this person.
    private func saveEntry<Entry: HealthRecordPayload>(_ type: Entry.Type, id: String?, _ record: PortalHealthRecord,
                                                       _ make: (String, Entry?) -> Entry?) async throws -> String? {
        let existing: Entry? = if let id { try await record.entry(Entry.self, id: id) } else { nil }
        if id != nil, existing == nil { throw Self.notFound() }
        guard let entry = make(id ?? HealthRecordID.make(), existing) else { return nil }
        try await record.save(entry, isNew: existing == nil)
        return entry.id
    }

    // MARK: Deleting

    private func recordDeletion(_ kind: RecordPageKind, id: String?, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit
        let name = try await entryName(kind, id: id ?? "", healthRecord(context.participant))
        return try page(RecordDeletePage(
            action: "/record/\(kind.path)/\(id ?? "")/delete", back: "/record/\(kind.path)",
            question: PortalText.text("portal.record.delete.\(kind.singular)", visit.language, ["name": name])), visit)
    }

    private func recordDelete(_ kind: RecordPageKind, id: String?, _ context: ParticipantContext) async throws -> Response {
        let visit = context.visit
        let record = healthRecord(context.participant)
        let id = id ?? ""
        _ = try await entryName(kind, id: id, record)
        switch kind {
        case .events: try await record.delete(HealthEvent.self, id: id)
        case .therapies: try await record.delete(Therapy.self, id: id)
        case .audiograms: try await record.delete(Audiogram.self, id: id)
        }
        return visit.redirect(to: "/record/\(kind.path)?done=deleted")
    }

    /// What the confirmation names: the title, the name or the date; a 404 when the person has
    /// no such entry.
    private func entryName(_ kind: RecordPageKind, id: String, _ record: PortalHealthRecord) async throws -> String {
        let name: String? = switch kind {
        case .events: try await record.entry(HealthEvent.self, id: id).map { $0.title }
        case .therapies: try await record.entry(Therapy.self, id: id).map { $0.name }
        case .audiograms: try await record.entry(Audiogram.self, id: id).map { $0.date }
        }
        guard let name else { throw Self.notFound() }
        return name
    }
}

/// The three kinds of entry the record pages show, by their path under `/record`.
enum RecordPageKind: String, CaseIterable, Sendable {
    case events, therapies, audiograms

    var path: String { rawValue }

    /// The template stem and the string key of one entry.
    var singular: String {
        switch self {
        case .events: "event"
        case .therapies: "therapy"
        case .audiograms: "audiogram"
        }
    }
}

extension PortalVisit {
    /// Reads and writes record times in the visitor's zone.
    var recordClock: RecordClock { RecordClock(timeZone: timeZone) }
}

/// Days and minutes as the portal reads and shows them: in the visitor's time zone
/// (``PortalVisit/timeZone``), so that 14:30 typed in Berlin is 14:30 in the person's shell in
/// Berlin whatever zone the server runs in.
struct RecordClock {
    let timeZone: TimeZone

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// `2026-11-23`.
    func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// `2026-11-23 14:30`, as the shell lists events.
    func minute(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return day(date) + String(format: " %02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// `2026-11-23T14:30`, what a `datetime-local` input holds.
    func inputMinute(_ date: Date) -> String {
        minute(date).replacingOccurrences(of: " ", with: "T")
    }

    /// A date and time typed as `YYYY-MM-DD HH:MM` (or with `T`, or with seconds); nil otherwise.
    func parseMinute(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let halves = trimmed.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard halves.count == 2, let day = RecordDay.components(String(halves[0])) else { return nil }
        let clock = halves[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(clock.count), let hour = clock[0], let minute = clock[1], (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        let second = clock.count == 3 ? clock[2] : 0
        guard let second, (0...59).contains(second) else { return nil }
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute, second: second))
    }
}
