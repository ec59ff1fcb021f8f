import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TinnitusNavigatorShared
import UNITIProtocol
@testable import UNITIServer
@testable import TinnitusNavigatorServer

/// The health record in the portal (`/record`, issue 15): what the pages write is the module's
/// own record (`tn`, `<kind>:<id>`, the shared payload types), checked by the shared rules, and
/// one person never reaches another's entries.
@Suite("Portal health record", .timeLimit(.minutes(10)))
struct PortalRecordTests {
    /// Every stored `tn` record of `name`, tombstones included.
    private func stored(_ server: TestServer, _ name: String) async throws -> [ModuleRecord] {
        let user = try #require(try await server.store.user(login: name))
        return try await server.store.records(userId: user.id, after: 0, moduleId: ModuleID(rawValue: "tn"), updatedSince: nil, limit: 200).records
    }

    private func payload<Entry: Decodable>(_ type: Entry.Type, _ record: ModuleRecord) throws -> Entry {
        try RecordPayloadCoding.decode(Entry.self, from: try #require(record.payload))
    }

    /// The id in a location such as `/record/audiograms/<id>?done=saved`, or of the only record.
    private func onlyID(_ records: [ModuleRecord], kind: String) throws -> String {
        let matching = records.filter { $0.clientId.hasPrefix(kind + ":") }
        try #require(matching.count == 1)
        return String(matching[0].clientId.dropFirst(kind.count + 1))
    }

    @Test("an event added in the browser is the module's record: tn, event:<id>, the shared payload, updatedAt to the millisecond")
    func addEventWritesModuleRecord() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            let saved = try await anna.submit("/record/events/new", to: "/record/events", [
                "title": "  ENT appointment ", "at": "2026-11-20T14:30", "type": "appointment", "description": "Dr. Weber"])
            #expect(saved.status == .seeOther)
            #expect(saved.headers[.location] == "/record/events?done=saved")

            let records = try await stored(server, "anna")
            #expect(records.count == 1)
            let record = try #require(records.first)
            #expect(record.moduleId == "tn")
            #expect(record.deleted == false)
            let id = try onlyID(records, kind: "event")
            let event = try payload(HealthEvent.self, record)
            #expect(event.id == id)
            #expect(event.title == "ENT appointment")
            #expect(event.type == .appointment)
            #expect(event.description == "Dr. Weber")
            #expect(RecordClock(timeZone: .current).minute(event.at) == "2026-11-20 14:30")
            #expect(event.problems.isEmpty)
            // The payload's own update time is the record's, as the shell stamps both.
            #expect(OffsetTimestamp.utcMilliseconds(event.updatedAt) == record.updatedAt)
            #expect(record.updatedAt.hasSuffix("Z") && record.updatedAt.contains("."))

            let list = try await anna.get(try #require(saved.headers[.location]))
            #expect(list.text.contains("ENT appointment"))
            #expect(list.text.contains("2026-11-20 14:30"))
            #expect(list.text.contains("Saved."))
        }
    }

    @Test("a long list of entries is shown 50 per page, newest first, with links between the pages")
    func entriesPaged() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            // 55 events on 55 days of 2026: event 55 is the newest.
            let day = { (index: Int) in Calendar(identifier: .gregorian).date(byAdding: .day, value: index, to: Date(timeIntervalSince1970: 1_767_225_600))! }
            let format = { (index: Int) -> String in
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = .current
                let parts = calendar.dateComponents([.year, .month, .day], from: day(index))
                return String(format: "%04d-%02d-%02dT09:00", parts.year!, parts.month!, parts.day!)
            }
            for index in 1...55 {
                #expect(try await anna.submit("/record/events/new", to: "/record/events", [
                    "title": "Event number \(index).", "at": format(index), "type": "attack", "description": ""]).status == .seeOther)
            }
            let first = try await anna.get("/record/events").text
            let second = try await anna.get("/record/events?page=2").text
            let shown = { (html: String) in (1...55).filter { html.contains("Event number \($0).") } }
            #expect(shown(first) == Array(6...55))
            #expect(shown(second) == Array(1...5))
            #expect(first.contains("Page 1 of 2") && first.contains(#"href="/record/events?page=2" id="older-page""#))
            #expect(!first.contains(#"id="newer-page""#))
            #expect(second.contains("Page 2 of 2") && second.contains(#"href="/record/events?page=1" id="newer-page""#))
            #expect(try await anna.get("/record/events?page=40").text.contains("Page 2 of 2"))
            // The overview still counts them all.
            #expect(try await anna.get("/record").text.contains(PortalText.text("portal.record.overview.events", "en", ["count": "55"])))
        }
    }

    @Test("record times are typed and shown in the browser's zone (its cookie), whatever the server's; an unknown zone falls back")
    func timesInBrowserZone() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            anna.cookies["uniti_zone"] = "America/New_York"
            #expect(try await anna.submit("/record/events/new", to: "/record/events", [
                "title": "Tinnitus louder", "at": "2026-11-20T14:30", "type": "attack", "description": ""]).status == .seeOther)
            let event = try payload(HealthEvent.self, try #require(try await stored(server, "anna").first))
            // 14:30 in New York in November (UTC-5) is 19:30 UTC.
            #expect(Timestamps.format(event.at) == "2026-11-20T19:30:00Z")
            #expect(try await anna.get("/record/events").text.contains("2026-11-20 14:30"))

            anna.cookies["uniti_zone"] = "Europe%2FBerlin"
            #expect(try await anna.get("/record/events").text.contains("2026-11-20 20:30"))
            let edit = try await anna.get("/record/events/\(event.id)/edit")
            #expect(edit.text.contains(#"value="2026-11-20T20:30""#))

            anna.cookies["uniti_zone"] = "Mars/Olympus_Mons"
            let fallback = RecordClock(timeZone: .current).minute(event.at)
            #expect(try await anna.get("/record/events").text.contains(fallback))
        }
    }

    @Test("a bad value is named beside its field, what was typed is kept, and nothing is saved")
    func validationBesideFields() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            let event = try await anna.submit("/record/events/new", to: "/record/events", [
                "title": "   ", "at": "yesterday noon", "type": "attack", "description": "kept <b>text</b>"])
            #expect(event.status == .unprocessableContent)
            #expect(event.text.contains(#"<p class="field-error" id="title-error">Please fill this in.</p>"#))
            #expect(event.text.contains(#"id="at-error">&#39;yesterday noon&#39; is not a date and time"#))
            #expect(event.text.contains(#"value="yesterday noon""#))
            #expect(event.text.contains("kept &lt;b&gt;text&lt;/b&gt;</textarea>"))
            #expect(event.text.contains(#"<option value="attack" selected>"#))

            let therapy = try await anna.submit("/record/therapies/new", to: "/record/therapies", [
                "name": "TRT", "type": "trt", "start": "2026-11-05", "end": "2026-10-01", "note": ""])
            #expect(therapy.status == .unprocessableContent)
            #expect(therapy.text.contains(#"id="end-error">The end (2026-10-01) lies before the start (2026-11-05).</p>"#))

            let audiogram = try await anna.submit("/record/audiograms/new", to: "/record/audiograms", Self.levels(right1000: "12", left4000: "loud"))
            #expect(audiogram.status == .unprocessableContent)
            #expect(audiogram.text.contains("12 dB HL (right ear, 1000 Hz) is not a hearing level"))
            #expect(audiogram.text.contains(#"id="right-1000" name="right-1000" inputmode="numeric" value="12""#))
            #expect(audiogram.text.contains("&#39;loud&#39; is not a whole number."))
            let missing = try await anna.submit("/record/audiograms/new", to: "/record/audiograms", Self.levels(right125: "", left125: ""))
            #expect(missing.text.contains(#"id="row-125-error">125 Hz needs a value for at least one ear.</p>"#))

            #expect(try await stored(server, "anna").isEmpty)
        }
    }

    /// An audiogram form: every standard frequency filled unless overridden.
    static func levels(right125: String = "5", left125: String = "10", right1000: String = "15", left4000: String = "40",
                       date: String = "2026-11-20") -> [String: String] {
        var fields = ["date": date, "note": "after the concert", "pitchLeft": "6000", "loudnessLeft": "50"]
        let right = ["125": right125, "250": "10", "500": "10", "1000": right1000, "2000": "20", "4000": "35", "8000": "45"]
        let left = ["125": left125, "250": "15", "500": "20", "1000": "25", "2000": "30", "4000": left4000, "8000": "50"]
        for (hz, value) in right { fields["right-\(hz)"] = value }
        for (hz, value) in left { fields["left-\(hz)"] = value }
        return fields
    }

    @Test("an edit keeps the id and the creation time and stamps a newer update; a delete leaves a tombstone after a confirmation")
    func editAndDelete() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            _ = try await anna.submit("/record/therapies/new", to: "/record/therapies", [
                "name": "Hearing aids", "type": "hearing-aid", "start": "2025-03-01", "end": "", "note": ""])
            let id = try onlyID(try await stored(server, "anna"), kind: "therapy")
            let before = try payload(Therapy.self, try #require(try await stored(server, "anna").first))
            #expect(before.end == nil)
            #expect(try await anna.get("/record/therapies").text.contains(#"<span class="ongoing">ongoing</span>"#))

            server.clock.advance(by: 60)
            let edit = try await anna.get("/record/therapies/\(id)/edit")
            #expect(edit.text.contains(#"value="Hearing aids""#))
            let saved = try await anna.submit("/record/therapies/\(id)/edit", to: "/record/therapies/\(id)", [
                "name": "Hearing aids (new pair)", "type": "hearing-aid", "start": "2025-03-01", "end": "2025-12-31", "note": "much better"])
            #expect(saved.status == .seeOther)
            let records = try await stored(server, "anna")
            #expect(records.count == 1)
            let after = try payload(Therapy.self, try #require(records.first))
            #expect(after.id == id)
            #expect(after.name == "Hearing aids (new pair)")
            #expect(after.end == "2025-12-31")
            #expect(after.note == "much better")
            #expect(after.createdAt == before.createdAt)
            #expect(after.updatedAt.timeIntervalSince(before.updatedAt) == 60)
            #expect(!(try await anna.get("/record/therapies").text.contains(#"class="ongoing""#)))

            // The confirmation page changes nothing; its POST deletes.
            let confirm = try await anna.get("/record/therapies/\(id)/delete")
            #expect(confirm.text.contains("Hearing aids (new pair)"))
            #expect(confirm.text.contains(#"action="/record/therapies/\#(id)/delete""#))
            #expect(try await stored(server, "anna").first?.deleted == false)
            #expect(try await anna.post("/record/therapies/\(id)/delete", [:]).status == .forbidden)
            server.clock.advance(by: 1)
            let deleted = try await anna.submit("/record/therapies/\(id)/delete", to: "/record/therapies/\(id)/delete", [:])
            #expect(deleted.headers[.location] == "/record/therapies?done=deleted")
            let tombstone = try #require(try await stored(server, "anna").first)
            #expect(tombstone.clientId == "therapy:\(id)")
            #expect(tombstone.deleted)
            #expect(tombstone.payload == nil)
            #expect(!(try await anna.get("/record/therapies").text.contains("Hearing aids")))
            #expect(try await anna.get("/record/therapies/\(id)/edit").status == .notFound)
        }
    }

    @Test("an edit made here wins over the stored version even when this server's clock lags behind the device that wrote it")
    func editWinsOverFutureStamp() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            _ = try await anna.submit("/record/events/new", to: "/record/events", [
                "title": "Attack", "at": "2026-11-23T07:00", "type": "attack", "description": ""])
            let id = try onlyID(try await stored(server, "anna"), kind: "event")
            server.clock.advance(by: -3600)
            _ = try await anna.submit("/record/events/\(id)/edit", to: "/record/events/\(id)", [
                "title": "Strong attack", "at": "2026-11-23T07:00", "type": "attack", "description": ""])
            let event = try payload(HealthEvent.self, try #require(try await stored(server, "anna").first))
            #expect(event.title == "Strong attack")
        }
    }

    @Test("an audiogram shows its averages, grade and picture; the picture is the module's SVG, without styles or scripts")
    func audiogramPageAndPicture() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            let saved = try await anna.submit("/record/audiograms/new", to: "/record/audiograms", Self.levels())
            #expect(saved.status == .seeOther)
            let id = try onlyID(try await stored(server, "anna"), kind: "audiogram")
            #expect(saved.headers[.location] == "/record/audiograms/\(id)?done=saved")
            let audiogram = try payload(Audiogram.self, try #require(try await stored(server, "anna").first))
            #expect(audiogram.threshold(.right, at: 1000) == 15)
            #expect(audiogram.threshold(.left, at: 4000) == 40)
            #expect(audiogram.pitchLeft == 6000)
            #expect(audiogram.loudnessLeft == 50)
            #expect(audiogram.discomfort.isEmpty)

            let page = try await anna.get("/record/audiograms/\(id)")
            // Right: (10 + 15 + 20 + 35) / 4 = 20; left: (20 + 25 + 30 + 40) / 4 = 28.75.
            #expect(page.text.contains(#"<dd id="average-right">20.0</dd>"#))
            #expect(page.text.contains(#"<dd id="average-left">28.8</dd>"#))
            #expect(page.text.contains(#"<dd id="grade">mild hearing loss</dd>"#))
            #expect(page.text.contains(#"<img id="audiogram-picture" src="/record/audiograms/\#(id).svg""#))
            #expect(try await anna.get("/record/audiograms").text.contains("mild hearing loss"))

            let picture = try await anna.get("/record/audiograms/\(id).svg")
            #expect(picture.status == .ok)
            #expect(picture.headers[.contentType] == "image/svg+xml; charset=utf-8")
            let plot = AudiogramPlot(audiogram, labels: .init(
                title: "Audiogram of 2026-11-20", frequencyAxis: "Frequency (Hz)", levelAxis: "Hearing level (dB HL)",
                right: "right ear", left: "left ear", discomfort: "threshold of discomfort", tinnitus: "tinnitus"))
            #expect(picture.text == AudiogramSVG(fitting: plot).document(plot))
            #expect(!picture.text.contains("<style") && !picture.text.contains("style=") && !picture.text.contains("<script"))
        }
    }

    @Test("a script typed into an event title is shown as text on every page")
    func scriptInTitleIsEscaped() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            _ = try await anna.submit("/record/events/new", to: "/record/events", [
                "title": "<script>alert(1)</script>", "at": "2026-11-20T14:30", "type": "other", "description": "\"quoted\" & <i>"])
            let id = try onlyID(try await stored(server, "anna"), kind: "event")
            for path in ["/record/events", "/record", "/record/events/\(id)/edit", "/record/events/\(id)/delete"] {
                let page = try await anna.get(path)
                #expect(page.status == .ok)
                #expect(!page.text.contains("<script>alert"), "\(path)")
                #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(path)")
            }
            #expect(try payload(HealthEvent.self, try #require(try await stored(server, "anna").first)).title == "<script>alert(1)</script>")
        }
    }

    @Test("one person never sees or changes another's entries, not even by guessing the id: every way in is a 404")
    func isolationBetweenPeople() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            _ = try await anna.submit("/record/events/new", to: "/record/events", [
                "title": "Anna's appointment", "at": "2026-11-20T14:30", "type": "appointment", "description": ""])
            _ = try await anna.submit("/record/audiograms/new", to: "/record/audiograms", Self.levels())
            let annas = try await stored(server, "anna")
            let event = try onlyID(annas, kind: "event"), audiogram = try onlyID(annas, kind: "audiogram")

            let bob = try await server.signedInBrowser(client, "bob")
            #expect(!(try await bob.get("/record/events").text.contains("Anna's appointment")))
            #expect(try await bob.get("/record").text.contains("entries: 0"))
            for path in ["/record/events/\(event)/edit", "/record/events/\(event)/delete", "/record/audiograms/\(audiogram)",
                         "/record/audiograms/\(audiogram).svg", "/record/audiograms/\(audiogram)/edit", "/record/therapies/\(event)/edit",
                         "/record/events/not-an-id%3Cb%3E/edit", "/record/audiograms/..%2F..%2Fetc.svg"] {
                let response = try await bob.get(path)
                #expect(response.status == .notFound, "\(path)")
            }
            #expect(try await bob.get("/record/events/\(event)/edit").text.contains("There is no such entry in your health record."))
            let csrf = try #require(PortalBrowser.csrf(in: try await bob.get("/record/events/new").text))
            let edit = try await bob.post("/record/events/\(event)", [
                "csrf": csrf, "title": "Bob was here", "at": "2026-11-20T14:30", "type": "other", "description": ""])
            #expect(edit.status == .notFound)
            #expect(try await bob.post("/record/events/\(event)/delete", ["csrf": csrf]).status == .notFound)
            #expect(try await bob.post("/record/audiograms/\(audiogram)/delete", ["csrf": csrf]).status == .notFound)

            #expect(try await stored(server, "anna") == annas)
            #expect(try await stored(server, "bob").isEmpty)
        }
    }

    @Test("logged-out visitors are sent to the login page, and a change without its CSRF token is refused")
    func loginAndCSRFRequired() async throws {
        let server = try TestServer()
        try await server.run { client in
            let visitor = PortalBrowser(client)
            for path in ["/record", "/record/events", "/record/therapies/new", "/record/audiograms"] {
                let response = try await visitor.get(path)
                #expect(response.status == .seeOther, "\(path)")
                #expect(response.headers[.location] == "/login", "\(path)")
            }
            let posted = try await visitor.submit("/login", to: "/record/events", [
                "title": "x", "at": "2026-11-20T14:30", "type": "other"])
            #expect(posted.headers[.location] == "/login")

            let anna = try await server.signedInBrowser(client, "anna")
            let forged = try await anna.post("/record/events", ["title": "x", "at": "2026-11-20T14:30", "type": "other"])
            #expect(forged.status == .forbidden)
            #expect(try await stored(server, "anna").isEmpty)
        }
    }
}
