import Foundation
import HTTPTypes
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Following participants (issue 47): the participants page lists those who left and counts
/// deleted accounts, flags an outstanding consent and shows the last answer's time; each
/// participant has a page with their standing, consent, devices, a 14-day heat-map, prompts
/// and history, and one who withdrew with deletion has a page without data.
@Suite("Console: a page per participant", .timeLimit(.minutes(10)))
struct ConsoleParticipantTests {
    /// A prompt's events as a device sends them, all at its due time in UTC; delivered with a
    /// window of an hour, completed with a sheet.
    static func events(_ id: String, questionnaire: String, due: Date, _ kinds: [PromptEventKind]) -> [PromptEvent] {
        let utc = TimeZone(identifier: "UTC")!, at = OffsetTimestamp(due, in: utc)
        return kinds.map { kind in
            PromptEvent(promptId: id, moduleId: "tys", questionnaireId: questionnaire, kind: kind, at: at, dueAt: at,
                        expiresAt: kind == .delivered ? OffsetTimestamp(due.addingTimeInterval(3600), in: utc) : nil,
                        channel: kind == .delivered ? "daemon" : nil, sheetId: kind == .completed ? UUID() : nil)
        }
    }

    @Test("the participants page shows every standing; each participant's page shows what the team may know of them, and nothing of one who withdrew with deletion",
          arguments: StoreKind.allCases)
    func participantPages(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            let store = fixture.store, now = fixture.clock.now(), day = 86_400.0
            try await fixture.run { client in
                let (browser, _) = try await fixture.alphaEditor(client)
                _ = try await store.addQuestionnaire(
                    try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "alpha-ema").utf8), studyId: "alpha"), module: .tys, now: now)
                let consent = "/console/studies/alpha/consent"
                #expect(try await browser.submit(consent, to: consent, ["consent-en": "First text.", "consent-de": "Erster Text."]).status == .seeOther)
                var ids: [String: Int64] = [:]
                for name in ["ann", "ben", "cem", "dan", "eva"] {
                    let pseudonym = "p-\(name)-0000001"
                    ids[name] = try await store.createUser(username: name, email: "\(name)@example.org", passwordHash: "h", language: "en",
                                                           pseudonym: pseudonym, now: now)
                    try await store.setMembership(studyId: "alpha", userId: ids[name]!, status: name == "dan" ? .pending : .member,
                                                  now: now.addingTimeInterval(-3 * day))
                    #expect(try await store.recordConsent(userId: ids[name]!, studyId: "alpha", version: 1, now: now.addingTimeInterval(-3 * day)))
                }
                // A second consent version: the members who stay have not agreed to it.
                #expect(try await browser.submit(consent, to: consent, ["consent-en": "Second text.", "consent-de": "Zweiter Text."]).status == .seeOther)

                // Ann's prompts: yesterday one answered and one missed, today one answered.
                func prompt(_ id: String, due: TimeInterval, _ kinds: [PromptEventKind]) -> [PromptEvent] {
                    Self.events(id, questionnaire: "alpha-ema", due: now.addingTimeInterval(due), kinds)
                }
                _ = try await store.storePromptEvents(userId: ids["ann"]!, events: prompt("tys/alpha-ema/1", due: -day, [.planned, .delivered, .completed])
                    + prompt("tys/alpha-ema/2", due: -day + 7200, [.planned, .delivered, .expired])
                    + prompt("tys/alpha-ema/3", due: -600, [.planned, .delivered, .completed]), receivedAt: now)
                // Ben leaves and keeps his answers; Cem withdraws with deletion; Eva deletes her account.
                for (name, deleted) in [("ben", false), ("cem", true)] {
                    try await store.leaveStudy(userId: ids[name]!, studyId: "alpha", deleteAnswers: deleted, now: now, recording: AuditRecord(
                        actor: .participant("p-\(name)-0000001"), studyId: "alpha", action: "participant.leave",
                        detail: ["answers": .string(deleted ? "deleted" : "kept")]))
                }
                #expect(try await store.deleteAccount(userId: ids["eva"]!, now: now) { studies, pseudonym in
                    studies.map { AuditRecord(actor: .participant(pseudonym), studyId: $0, action: "participant.deleteAccount", detail: [:]) }
                })

                let list = try await browser.get("/console/studies/alpha/participants")
                #expect(list.status == .ok)
                func row(_ name: String) throws -> String {
                    let start = try #require(list.text.range(of: #"id="participant-p-\#(name)-0000001""#))
                    return String(list.text[start.lowerBound...].prefix { $0 != "\n" })
                }
                #expect(try row("ann").contains("member") && row("ann").contains("consent v2 outstanding"))
                #expect(try row("ben").contains("left (answers kept)") && !row("ben").contains("outstanding"))
                #expect(try row("cem").contains("withdrew (answers deleted)"))
                #expect(!list.text.contains("p-eva-0000001"))
                #expect(list.text.contains("1 participant deleted their account"))
                #expect(!list.text.contains(#"id="participant-p-dan-0000001""#), "a request is listed with the requests")

                let ann = try await browser.get("/console/studies/alpha/participants/p-ann-0000001")
                #expect(ann.status == .ok)
                #expect(ann.text.contains(#"id="consent-outstanding""#) && ann.text.contains("Version 2 of the consent"))
                let heat = try #require(ann.text.components(separatedBy: #"id="heat-map""#).last?.components(separatedBy: "</p>").first)
                #expect(heat.matches(of: #/role="img">/#).count == 14)
                #expect(heat.hasSuffix("█</span>"), "today: one of one answered in time")
                #expect(heat.contains("1 of 2 delivered prompts answered in time\" aria-label"), "yesterday: one answered, one missed")
                let prompts = try #require(ann.text.components(separatedBy: #"<table id="prompts">"#).last?.components(separatedBy: "</table>").first)
                #expect(prompts.matches(of: #/<tr><td>/#).count == 3)
                #expect(prompts.contains("answered in time") && prompts.contains("missed"))
                #expect(ann.text.contains(#"<dd id="rate">67 %</dd>"#))

                let cem = try await browser.get("/console/studies/alpha/participants/p-cem-0000001")
                #expect(cem.status == .ok && cem.text.contains(#"id="no-data""#) && !cem.text.contains(#"id="prompts""#))
                #expect(cem.text.contains("left the study"))
                #expect(try await browser.get("/console/studies/alpha/participants/p-eva-0000001").status == .notFound)
                #expect(try await browser.get("/console/studies/alpha/participants/p-nobody").status == .notFound)

                // A viewer reads a participant's page too.
                let viewer = try await fixture.enrolledStaff("vic")
                try await fixture.role(.viewer, viewer, "alpha")
                let viewing = PortalBrowser(client)
                try await fixture.signIn(viewing, viewer)
                #expect(try await viewing.get("/console/studies/alpha/participants/p-ann-0000001").status == .ok)
            }
        }
    }

    @Test("the participants page comes 100 a page, ordered by pseudonym, by rate (lowest first), by last answer or by flags")
    func pagedAndSorted() async throws {
        let fixture = ConsoleFixture(server: try TestServer())
        let store = fixture.store, now = fixture.clock.now()
        try await fixture.run { client in
            let (browser, _) = try await fixture.alphaEditor(client)
            var ids: [Int64] = []
            for index in 0..<230 {
                let id = try await store.createUser(username: "m\(index)", email: "m\(index)@example.org", passwordHash: "h", language: "en",
                                                    pseudonym: String(format: "p-m-%03d", index), now: now)
                try await store.setMembership(studyId: "alpha", userId: id, status: .member, now: now)
                ids.append(id)
            }
            func prompt(_ id: String, _ last: PromptEventKind) -> [PromptEvent] {
                Self.events(id, questionnaire: "alpha-daily", due: now.addingTimeInterval(-7200), [.planned, .delivered, last])
            }
            _ = try await store.storePromptEvents(userId: ids[150], events: prompt("tys/alpha-daily/1", .expired), receivedAt: now)
            _ = try await store.storePromptEvents(userId: ids[7], events: prompt("tys/alpha-daily/1", .completed), receivedAt: now)
            func pseudonyms(_ query: String) async throws -> (rows: [String], paging: String?) {
                let page = try await browser.get("/console/studies/alpha/participants\(query)")
                #expect(page.status == .ok)
                let rows = page.text.matches(of: #/id="participant-(p-m-\d{3})"/#).map { String($0.output.1) }
                let paging = page.text.firstMatch(of: #/page \d+ of \d+/#).map { String($0.output) }
                return (rows, paging)
            }
            let first = try await pseudonyms("")
            #expect(first.rows.count == 100 && first.rows.first == "p-m-000" && first.paging == "page 1 of 3")
            let last = try await pseudonyms("?page=3")
            #expect(last.rows.count == 30 && last.rows.last == "p-m-229" && last.paging == "page 3 of 3")
            #expect(try await pseudonyms("?page=99").rows == last.rows, "a page past the end shows the last")
            let byRate = try await pseudonyms("?sort=rate")
            #expect(Array(byRate.rows.prefix(3)) == ["p-m-150", "p-m-007", "p-m-000"], "0 %, 100 %, then those without a rate")
            #expect(try await pseudonyms("?sort=nonsense").rows == first.rows)
        }
    }
}

