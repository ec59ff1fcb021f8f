import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48, "Visits": each visit's state from the participant's sheets and the clock.
@Suite("Visits: due, done in or out of their window, missed; on the participant's page and from 'uniti-server visits'", .timeLimit(.minutes(10)))
struct VisitTests {
    static let visits = [
        TrialVisit(id: "baseline", label: "Baseline", day: 0, window: 7, questionnaires: ["thi"]),
        TrialVisit(id: "week12", label: "Week 12", day: 84, window: 7, questionnaires: ["thi", "qol"]),
        TrialVisit(id: "followup", label: "Follow-up", day: 336, window: 7, questionnaires: ["thi"]),
    ]
    static let randomised = Date(timeIntervalSince1970: 1_800_000_000)

    static func at(_ day: Double) -> Date { randomised.addingTimeInterval(day * 86_400) }

    func states(_ sheets: [(String, Double)], now: Double, randomised: Date? = Self.randomised) -> [String] {
        VisitStatus.of(Self.visits, randomised: randomised, joined: Self.at(-30), sheets: sheets.map { ($0.0, Self.at($0.1)) }, now: Self.at(now))
            .map(\.state.rawValue)
    }

    @Test("a visit is upcoming, due, done in its window, done outside it (early or late, counted for the nearer visit) or missed")
    func states() {
        #expect(states([], now: -1, randomised: nil) == ["unscheduled", "unscheduled", "unscheduled"])
        // Baseline answered two days before randomisation: inside its window (−7 to +7 days).
        #expect(states([("thi", -2)], now: 1) == ["done-in-window", "upcoming", "upcoming"])
        #expect(states([("thi", -2)], now: 80) == ["done-in-window", "due", "upcoming"])
        // Week 12: one questionnaire in the window, the other only on day 95 (the window closes
        // after day 91): done outside it, at the later sheet.
        let late = VisitStatus.of(Self.visits, randomised: Self.randomised, joined: nil,
                                  sheets: [("thi", Self.at(-2)), ("thi", Self.at(80)), ("qol", Self.at(95))], now: Self.at(100))
        #expect(late.map(\.state.rawValue) == ["done-in-window", "done-out-of-window", "upcoming"])
        #expect(late[1].doneAt == Self.at(95) && late[1].opens == Self.at(77) && late[1].closes == Self.at(92))
        // Without the second questionnaire, week 12 is missed once its window has closed.
        #expect(states([("thi", -2), ("thi", 80)], now: 91.9) == ["done-in-window", "due", "upcoming"])
        #expect(states([("thi", -2), ("thi", 80)], now: 92) == ["done-in-window", "missed", "upcoming"])
        // A sheet far after week 12 but nearer the follow-up counts for the follow-up (early).
        #expect(states([("thi", -2), ("thi", 300)], now: 310) == ["done-in-window", "missed", "done-out-of-window"])
        #expect(states([("thi", -2)], now: 335) == ["done-in-window", "missed", "due"])
        #expect(states([("thi", -2)], now: 400) == ["done-in-window", "missed", "missed"])
        // A sheet from before randomisation is no early week 12 (nor one from the first days
        // after it): early counts from halfway between randomisation and the window, day 38.5.
        let first = [TrialVisit(id: "week12", label: "Week 12", day: 84, window: 7, questionnaires: ["thi"])]
        #expect(VisitStatus.of(first, randomised: Self.randomised, joined: nil, sheets: [("thi", Self.at(-1)), ("thi", Self.at(30))], now: Self.at(100))
                    .map(\.state) == [.missed])
        #expect(VisitStatus.of(first, randomised: Self.randomised, joined: nil, sheets: [("thi", Self.at(40))], now: Self.at(100)).map(\.state) == [.outOfWindow])
        // Counted from joining instead: scheduled before randomisation.
        var fromJoining = Self.visits[0]
        fromJoining.from = .joining
        #expect(VisitStatus.of([fromJoining], randomised: nil, joined: Self.at(-30), sheets: [], now: Self.at(-30)).map(\.state) == [.due])
    }

    @Test("visits with overlapping windows, a bad day or window, or no questionnaire are refused with the design")
    func visitsAreChecked() {
        var design = RandomisationTests.design(.blocks)
        design.visits = [TrialVisit(id: "a", label: "A", day: 0, window: 7, questionnaires: ["thi"]),
                         TrialVisit(id: "b", label: "B", day: 10, window: 7, questionnaires: []),
                         TrialVisit(id: "c", label: "C", day: 5000, window: 99, questionnaires: ["thi"])]
        #expect(design.problems == ["visit b names no questionnaire", "visit c: the day must be -365 to 3650, not 5000",
                                    "visit c: the window must be 0 to 60 days, not 99", "the windows of visits a and b overlap"])
    }

    @Test("the participant's console page lists each visit's window and state; 'uniti-server visits' prints the same per participant and counts them per arm", arguments: StoreKind.allCases)
    func pageAndCommand(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let design = #"""
                    {"arms": [{"id": "sound", "label": "Sound therapy", "ratio": 1}, {"id": "counselling", "label": "Counselling", "ratio": 1}],
                     "factors": [], "method": "blocks", "blockMultiples": [1],
                     "visits": [{"id": "baseline", "label": "Baseline", "day": 0, "window": 7, "questionnaires": ["daily"]},
                                {"id": "week12", "label": "Week 12", "day": 84, "window": 7, "questionnaires": ["daily"]}]}
                    """#
                try await fixture.trialStudy(design: design)
                _ = try await fixture.participant(client, "ada", joining: "trial")
                let pseudonym = try #require(try await fixture.store.user(login: "ada")).pseudonym
                let editor = try await fixture.enrolledStaff("ed")
                try await fixture.role(.editor, editor, "trial")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, editor)
                let page = ConsolePage.participant.uri(study: "trial", participant: pseudonym)
                let before = try await browser.get(page)
                #expect(before.text.contains("<td>Baseline</td><td></td><td>not scheduled until randomised</td>"), "\(before.text)")

                _ = try await TrialService(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()))
                    .randomise(studyId: "trial", pseudonym: pseudonym, entered: [:])
                let userId = try #require(try await fixture.store.user(login: "ada")).id
                let started = OffsetTimestamp(fixture.clock.now().addingTimeInterval(3_600), in: TimeZone(identifier: "UTC")!).text
                _ = try await fixture.store.storeSheets(userId: userId, sheets: [ValidatedSheet(sheet: sheet(startedAt: started), studyId: "trial")],
                                                       receivedAt: fixture.clock.now())
                let after = try await browser.get(page)
                #expect(after.text.contains("<td>Baseline</td>") && after.text.contains("<td>done in the window</td>")
                        && after.text.contains("<td>Week 12</td>") && after.text.contains("<td>upcoming</td>"), "\(after.text)")

                let binary = try ServerBinaryTests.binary().path
                let printed = try Program.run(binary, ["visits", "--study", "trial", "--database", opened.location])
                #expect(printed.status == 0, "\(printed.err)")
                let lines = printed.out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
                let arm = try #require(try await fixture.store.allocations(studyId: "trial").first?.allocation.arm)
                #expect(lines.contains("\(pseudonym) \(arm) done-in-window upcoming"), "\(printed.out)")
                #expect(lines.contains("\(arm) baseline 0 0 1 0 0 0") && lines.contains("\(arm) week12 1 0 0 0 0 0"), "\(printed.out)")
                let csv = try Program.run(binary, ["visits", "--study", "trial", "--csv", "--database", opened.location])
                #expect(csv.out.hasPrefix("participant,arm,visit,state,opens_utc,closes_utc,done_utc,site\r\n\(pseudonym),\(arm),baseline,done-in-window,"),
                        "\(csv.out)")
            }
        }
    }

    @Test("participants get their own visits with the study (a joining visit before randomisation, then all), due by the clock, done once answered; the portal lists them with the arm's notice", arguments: StoreKind.allCases)
    func participantsSeeTheirVisits(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let design = #"""
                    {"arms": [{"id": "sound", "label": "Sound therapy", "ratio": 1, "notice": {"en": "Listen every day."}},
                              {"id": "counselling", "label": "Counselling", "ratio": 1, "notice": {"en": "Read the counselling pages."}}],
                     "factors": [], "method": "blocks", "blockMultiples": [1],
                     "visits": [{"id": "screening", "label": "Screening", "title": {"en": "First questions", "de": "Erste Fragen"},
                                 "day": 0, "window": 2, "questionnaires": ["daily"], "from": "joining"},
                                {"id": "week2", "label": "Week 2", "day": 14, "window": 2, "questionnaires": ["daily"]}]}
                    """#
                try await fixture.trialStudy(design: design)
                let token = try await fixture.participant(client, "ada", joining: "trial")
                func visits() async throws -> [StudyVisit] {
                    let info = try await client.get("/api/v1/studies/trial", token: token).decode(StudyInfo.self)
                    let listed = try await client.get("/api/v1/studies?scope=mine", token: token).decode(StudyList.self)
                    #expect(listed.studies.first?.visits == info.visits, "the list says what the study's page says")
                    return info.visits ?? []
                }
                // Before randomisation: the visit counted from joining only, due now.
                let joining = try await visits()
                #expect(joining.map(\.id) == ["screening"] && joining[0].title.text(in: "de") == "Erste Fragen")
                #expect(joining[0].state(at: fixture.clock.now()) == .due && StudyVisit.due(joining, at: fixture.clock.now()).count == 1)

                let pseudonym = try #require(try await fixture.store.user(login: "ada")).pseudonym
                _ = try await TrialService(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()))
                    .randomise(studyId: "trial", pseudonym: pseudonym, entered: [:])
                let both = try await visits()
                let randomisedAt = try #require(try await fixture.store.allocations(studyId: "trial").first).allocatedAt
                #expect(both.map(\.id) == ["screening", "week2"] && both[1].title.text(in: "en") == "Week 2")
                #expect(both[1].opens == Timestamps.format(randomisedAt.addingTimeInterval(12 * 86_400))
                        && both[1].closes == Timestamps.format(randomisedAt.addingTimeInterval(17 * 86_400)))
                #expect(both[1].state(at: fixture.clock.now()) == .upcoming && both[1].state(at: randomisedAt.addingTimeInterval(13 * 86_400)) == .due
                        && both[1].state(at: randomisedAt.addingTimeInterval(17 * 86_400)) == .missed)

                // Answered: done; the next study info says so.
                let started = OffsetTimestamp(fixture.clock.now().addingTimeInterval(600), in: TimeZone(identifier: "UTC")!).text
                let posted = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(startedAt: started)]))
                #expect(posted.status == .ok, "\(posted.text)")
                let answered = try await visits()
                #expect(answered[0].done && !answered[1].done && StudyVisit.due(answered, at: fixture.clock.now()).isEmpty, "\(answered)")

                // The portal's studies page: the arm's notice and the visits, never the arm.
                let arm = try #require(try await fixture.store.allocations(studyId: "trial").first).allocation.arm
                let browser = PortalBrowser(client)
                _ = try await browser.submit("/login", to: "/login", ["login": "ada", "password": "correct horse"])
                let page = try await browser.get("/studies")
                #expect(page.status == .ok && page.text.contains("id=\"visits-trial\"") && page.text.contains("<td>First questions</td>")
                        && page.text.contains("class=\"visit-done\"") && page.text.contains("<td>Week 2</td>") && page.text.contains("class=\"visit-upcoming\""),
                        "\(page.text)")
                #expect(page.text.contains(arm == "sound" ? "Listen every day." : "Read the counselling pages."))
                #expect(!page.text.contains("Sound therapy") && !page.text.contains("Counselling<") && !page.text.contains(">\(arm)<"))
            }
        }
    }
}
