import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import TrackYourHearingServer
@testable import UNITIServer

/// A sheet of `questionnaire` started at `startedAt` (ended five minutes later), prompted by a
/// reminder `remindedBeforeStart` seconds before the start, or none.
private func hearingSheet(_ startedAt: String, questionnaire: String = "tyh-daily", remindedBeforeStart: TimeInterval? = nil,
                          partial: Bool = false) -> AnswerSheet {
    var result = sheet(questionnaire: questionnaire, startedAt: startedAt)
    if let remindedBeforeStart {
        result.remindedAt = OffsetTimestamp(result.startedAt.date.addingTimeInterval(-remindedBeforeStart),
                                            in: TimeZone(secondsFromGMT: result.startedAt.offsetSeconds)!)
    }
    result.isPartial = partial
    return result
}

@Suite("Rewards route", .timeLimit(.minutes(10)))
struct RewardRouteTests {
    /// Study `hearing` (public) with a Track Your Hearing questionnaire `tyh-daily` and a Track Your
    /// Stress one `stress-daily`, and study `other` with rewards on and its own `tyh` questionnaire.
    private func hearingServer(rewards: Bool) async throws -> TestServer {
        let server = try TestServer()
        try await server.createStudy("hearing", modules: [.tyh, .tys])
        try await server.addQuestionnaire("tyh-daily", study: "hearing", module: .tyh)
        try await server.addQuestionnaire("stress-daily", study: "hearing", module: .tys)
        if rewards {
            try await runServerCommand(["study", "update", "hearing", "--rewards", "on", "--database", server.databasePath])
        }
        return server
    }

    private func upload(_ sheets: [AnswerSheet], token: String, client: any TestClientProtocol) async throws {
        let response = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: sheets))
        #expect(response.status == .ok)
    }

    private func rewards(_ token: String, client: any TestClientProtocol) async throws -> RewardList {
        let response = try await client.get("/api/v1/rewards", token: token)
        #expect(response.status == .ok)
        return try response.decode(RewardList.self)
    }

    @Test("rewards off: the study is absent from the list although its member sent sheets")
    func offMeansAbsent() async throws {
        let server = try await hearingServer(rewards: false)
        try await server.run { client in
            let token = try await client.signUp("ada", on: server)
            _ = try await client.json(.post, "/api/v1/studies/hearing/join", token: token, body: JoinStudyRequest())
            try await upload([hearingSheet("2027-01-15T09:00:00+01:00")], token: token, client: client)
            #expect(try await rewards(token, client: client) == RewardList(studies: []))
            #expect(try await client.get("/api/v1/rewards").status == .unauthorized)
        }
    }

    @Test("rewards on: the figures come from the caller's uploaded completed tyh sheets; partial, non-tyh and other users' sheets never count")
    func onFromUploadedSheets() async throws {
        let server = try await hearingServer(rewards: true)
        try await server.run { client in
            let ada = try await client.signUp("ada", on: server)
            let bob = try await client.signUp("bob", on: server)
            for token in [ada, bob] {
                _ = try await client.json(.post, "/api/v1/studies/hearing/join", token: token, body: JoinStudyRequest())
            }
            let onTime = hearingSheet("2027-01-15T09:00:00+01:00", remindedBeforeStart: 600)
            try await upload([onTime, hearingSheet("2027-01-16T21:00:00+01:00", remindedBeforeStart: 3601),
                              hearingSheet("2027-01-17T09:00:00+01:00", partial: true),
                              hearingSheet("2027-01-17T10:00:00+01:00", questionnaire: "stress-daily")], token: ada, client: client)
            try await upload([onTime], token: ada, client: client) // sent again: a duplicate, counted once
            try await upload((1...4).map { hearingSheet("2027-01-1\($0)T12:00:00+01:00") }, token: bob, client: client)

            let status = try #require(try await rewards(ada, client: client).studies.first)
            #expect(status == RewardStatus(studyId: "hearing", points: 25, level: 1, nextLevelAt: 100, completed: 2, onTime: 1,
                                           currentStreak: 2, longestStreak: 2, lastDay: "2027-01-16",
                                           badges: [RewardBadge(id: "first-sheet", earnedAt: "2027-01-15T09:05:00+01:00")]))
            let bobs = try await rewards(bob, client: client).studies
            #expect(bobs.map(\.completed) == [4])
            #expect(bobs.first?.badges.map(\.id) == ["first-sheet", "streak-3"])
        }
    }

    @Test("a non-member sees nothing, and one who left sees nothing more; studies are listed in the order joined")
    func membersOnly() async throws {
        let server = try await hearingServer(rewards: true)
        try await server.createStudy("second", modules: [.tyh])
        try await server.addQuestionnaire("tyh-second", study: "second", module: .tyh)
        try await runServerCommand(["study", "update", "second", "--rewards", "on", "--database", server.databasePath])
        try await server.run { client in
            let ada = try await client.signUp("ada", on: server)
            let eve = try await client.signUp("eve", on: server)
            _ = try await client.json(.post, "/api/v1/studies/second/join", token: ada, body: JoinStudyRequest())
            server.clock.advance(by: 60)
            _ = try await client.json(.post, "/api/v1/studies/hearing/join", token: ada, body: JoinStudyRequest())
            try await upload([hearingSheet("2027-01-15T09:00:00+01:00")], token: ada, client: client)
            #expect(try await rewards(ada, client: client).studies.map(\.studyId) == ["second", "hearing"])
            #expect(try await rewards(ada, client: client).studies.map(\.completed) == [0, 1])
            #expect(try await rewards(eve, client: client) == RewardList(studies: []))
            _ = try await client.post("/api/v1/studies/hearing/leave", token: ada)
            #expect(try await rewards(ada, client: client).studies.map(\.studyId) == ["second"])
        }
    }

    @Test("the list has an ETag; sending it back gives 304 until a new sheet changes the figures")
    func eTag() async throws {
        let server = try await hearingServer(rewards: true)
        try await server.run { client in
            let token = try await client.signUp("ada", on: server)
            _ = try await client.json(.post, "/api/v1/studies/hearing/join", token: token, body: JoinStudyRequest())
            let first = try await client.get("/api/v1/rewards", token: token)
            let tag = try #require(first.headers[.eTag])
            #expect(try await client.get("/api/v1/rewards", token: token, headers: [.ifNoneMatch: tag]).status == .notModified)
            try await upload([hearingSheet("2027-01-15T09:00:00+01:00")], token: token, client: client)
            #expect(try await client.get("/api/v1/rewards", token: token, headers: [.ifNoneMatch: tag]).status == .ok)
        }
    }

    @Test("an impossible remindedAt (after the start beyond 5 minutes) is stored as sent but not used for rewards")
    func impossibleReminderKeptButIgnored() async throws {
        let server = try await hearingServer(rewards: true)
        try await server.run { client in
            let token = try await client.signUp("ada", on: server)
            _ = try await client.json(.post, "/api/v1/studies/hearing/join", token: token, body: JoinStudyRequest())
            let late = hearingSheet("2027-01-15T09:00:00+01:00", remindedBeforeStart: -301)
            let skewed = hearingSheet("2027-01-16T09:00:00+01:00", remindedBeforeStart: -300)
            try await upload([late, skewed], token: token, client: client)
            let page = try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self)
            #expect(page.sheets.first { $0.sheet.id == late.id }?.sheet.remindedAt == late.remindedAt)
            #expect(try await rewards(token, client: client).studies.map(\.onTime) == [0])
        }
        #expect(RewardRules.plausibleReminder(hearingSheet("2027-01-15T09:00:00+01:00", remindedBeforeStart: -301)) == nil)
        let skewed = hearingSheet("2027-01-15T09:00:00+01:00", remindedBeforeStart: -300)
        #expect(RewardRules.plausibleReminder(skewed) == skewed.remindedAt?.date)
        #expect(RewardRules.plausibleReminder(hearingSheet("2027-01-15T09:00:00+01:00")) == nil)
    }

    @Test("""
        study update --rewards on|off (Track Your Hearing's switch) is stored, audited and shown by study show and list; \
        another value, an unknown switch and a stray argument are refused
        """)
    func rewardsOption() async throws {
        let server = try await hearingServer(rewards: false)
        let db = ["--database", server.databasePath]
        let rewards = TrackYourHearingServerPart.rewardsSwitch.key
        #expect(try await server.store.studySwitches(studyId: "hearing").isEmpty)
        try await runServerCommand(["study", "update", "hearing", "--rewards", "on"] + db)
        #expect(try await server.store.studySwitches(studyId: "hearing") == [rewards])
        let study = try #require(try await server.store.study(id: "hearing"))
        #expect(study.modules == [.tyh, .tys]) // the other fields stay
        let overview = try StudyCommand.overview(study, questionnaires: [], switches: [rewards], modules: serverModuleParts)
        #expect(overview["rewards"] == .bool(true) && overview["id"] == .string("hearing"))
        #expect(try StudyCommand.overview(study, questionnaires: [], switches: [], modules: serverModuleParts)["rewards"] == .bool(false))
        // The same again changes nothing and writes no line; off, as --NAME=VALUE, is one line.
        try await runServerCommand(["study", "update", "hearing", "--rewards", "on"] + db)
        try await runServerCommand(["study", "update", "hearing", "--rewards=off"] + db)
        #expect(try await server.store.studySwitches(studyId: "hearing").isEmpty)
        let lines = try await server.store.auditTrail(studyId: "hearing").filter { $0.action == "study.update" }
        #expect(lines.map { $0.detail["changes"] } == [
            .object(["rewards": .object(["from": .bool(false), "to": .bool(true)])]),
            .object(["rewards": .object(["from": .bool(true), "to": .bool(false)])]),
        ])
        for refused in [["--rewards", "maybe"], ["--rewards"], ["--loudness", "on"], ["stray"]] {
            #expect(throws: (any Error).self, "\(refused)") {
                _ = try UNITIServerCommand.parseAsRoot(["study", "update", "hearing"] + refused + db)
            }
        }
        // A new study may start with the switch on.
        try await runServerCommand(["study", "create", "second", "--title", "Second", "--rewards", "on"] + db)
        #expect(try await server.store.studySwitches(studyId: "second") == [rewards])
    }
}
