import ArgumentParser
import Foundation
import HummingbirdTesting
import Testing
import UNITITesting
import UNITIProtocol
@testable import UNITIServer

/// The questionnaires of joined studies: which module presents each, deactivation, and the one
/// per-person list a device keeps them from.
@Suite("Study questionnaires", .timeLimit(.minutes(10)))
struct StudyQuestionnaireTests {
    @Test("without --module a bundled id stays with the module that bundles it (else the shell's), any other id goes to tys")
    func defaultModules() async throws {
        // The program's own bundled files decide: these are bundled, with and without a module prefix.
        #expect(QuestionnaireModules.bundledIds.isSuperset(of: ["tyt-momentary", "uniti-case-history", "tinnitus-distress-12",
                                                                "son-tinnitus-profile"]))
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        try await server.createStudy("pilot")
        let expected: [(id: String, module: ModuleID)] = [
            ("tyt-momentary", .tyt), ("son-tinnitus-profile", .son), ("uniti-case-history", .shell), ("tinnitus-distress-12", .shell),
            ("tn-case-history", .tn), ("tn-worst-symptom", .tn),
            // Not bundled: a known prefix does not make it that module's.
            ("stress-daily", .tys), ("tyt-custom", .tys),
        ]
        for (id, _) in expected {
            try await runServerCommand(["questionnaire", "import", try server.questionnaireFile(id), "--study", "pilot"] + db)
        }
        let links = try await server.store.questionnaireLinks(studyId: "pilot")
        #expect(links.map(\.questionnaireId) == expected.map(\.id))
        #expect(links.map(\.module) == expected.map(\.module))
    }

    @Test("--module sets the module for all versions; re-importing with another changes it, without one keeps it; an unknown module is refused naming the known ones")
    func moduleOption() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        try await server.createStudy("pilot")
        let file = try server.questionnaireFile("tyt-momentary")
        try await runServerCommand(["questionnaire", "import", file, "--study", "pilot", "--module", "tyh"] + db)
        #expect(try await server.store.questionnaireLink(id: "tyt-momentary")?.module == .tyh)
        // The same version again with another module: nothing new is stored, but the link changes.
        try await runServerCommand(["questionnaire", "import", file, "--study", "pilot", "--module", "tn"] + db)
        #expect(try await server.store.questionnaireLink(id: "tyt-momentary")?.module == .tn)
        // A new version without --module keeps the chosen module instead of going back to the default (tyt).
        try await runServerCommand(["questionnaire", "import", try server.questionnaireFile("tyt-momentary", version: 2), "--study", "pilot"] + db)
        #expect(try await server.store.questionnaireLink(id: "tyt-momentary")?.module == .tn)
        #expect(try await server.store.latestQuestionnaires(studyId: "pilot").map(\.version) == [2])

        for module in ["chess", "uniti", "TYS"] {
            let error = try #require(await #expect(throws: APIError.self) {
                try await runServerCommand(["questionnaire", "import", try server.questionnaireFile("other"), "--study", "pilot",
                                            "--module", module] + db)
            })
            #expect(error.message == "Unknown module '\(module)'; known: tyt, tys, tyh, tn, son.")
        }
        #expect(try await server.store.questionnaireLink(id: "other") == nil)
        #expect(try await server.store.latestQuestionnaires(studyId: "pilot").map(\.id) == ["tyt-momentary"])
    }

    @Test("a deactivated questionnaire refuses sheets started from the deactivation on with 422 questionnaire_deactivated, keeps earlier ones, and takes sheets again once activated")
    func deactivation() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        try await server.createStudy("open")
        try await server.createStudy("other")
        try await server.addQuestionnaire(study: "open")
        try await server.addQuestionnaire("elsewhere", study: "other")
        try await server.run { client in
            let token = try await client.signUp("vera", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            let before = try await client.get("/api/v1/questionnaires", token: token)
            let tag = try #require(before.headers[.eTag])
            #expect(try before.decode(AssignedQuestionnaireList.self).questionnaires.map(\.active) == [true])

            try await runServerCommand(["questionnaire", "deactivate", "daily", "--study", "open"] + db)
            let since = try #require(try await server.store.questionnaireLink(id: "daily")?.deactivatedAt)
            // A second deactivation keeps the first time.
            try await runServerCommand(["questionnaire", "deactivate", "daily", "--study", "open"] + db)
            #expect(try await server.store.questionnaireLink(id: "daily")?.deactivatedAt == since)

            let after = try await client.get("/api/v1/questionnaires", token: token, headers: [.ifNoneMatch: tag])
            #expect(after.status == .ok)
            #expect(after.headers[.eTag] != tag)
            #expect(try after.decode(AssignedQuestionnaireList.self).questionnaires.map(\.active) == [false])

            func started(_ offset: TimeInterval) -> String {
                OffsetTimestamp(since.addingTimeInterval(offset), in: TimeZone(secondsFromGMT: 3600)!).text
            }
            let late = sheet(startedAt: started(60))
            let refused = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [late]))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorCode == "questionnaire_deactivated")
            let message = try refused.decode(APIErrorBody.self).error.message
            #expect(message.contains("'daily'"))
            #expect(message.contains(late.id.uuidString.lowercased()))
            // Answered offline before the deactivation, sent after it: stored.
            let early = sheet(startedAt: started(-3600))
            let stored = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [early]))
            #expect(try stored.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.stored])

            try await runServerCommand(["questionnaire", "activate", "daily", "--study", "open"] + db)
            #expect(try await server.store.questionnaireLink(id: "daily")?.isActive == true)
            let again = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [late]))
            #expect(try again.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.stored])
            let reactivated = try await client.get("/api/v1/questionnaires", token: token, headers: [.ifNoneMatch: tag])
            #expect(reactivated.status == .notModified)
        }

        // Another study's questionnaire, or an unknown one, is refused and left alone.
        for (id, study) in [("elsewhere", "open"), ("nothing", "open")] {
            let error = try #require(await #expect(throws: ValidationError.self) {
                try await runServerCommand(["questionnaire", "deactivate", id, "--study", study] + db)
            })
            #expect(error.message == "Study 'open' has no questionnaire '\(id)'; see 'questionnaire list --study open'.")
        }
        #expect(try await server.store.questionnaireLink(id: "elsewhere")?.isActive == true)
        await #expect(throws: ValidationError.self) {
            try await runServerCommand(["questionnaire", "activate", "daily", "--study", "nowhere"] + db)
        }
    }

    @Test("questionnaire list shows each questionnaire's newest version, module, state and kind in import order")
    func listCommand() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        try await server.createStudy("pilot")
        try await server.createStudy("other")
        try await server.addQuestionnaire("zeta", study: "pilot")
        try await server.addQuestionnaire("alpha", study: "pilot", module: .tyh)
        try await server.addQuestionnaire("zeta", version: 3, study: "pilot")
        try await server.addQuestionnaire("elsewhere", study: "other")
        _ = try await server.store.setQuestionnaireActive(id: "alpha", studyId: "pilot", active: false,
                                                          now: TestTime.now)
        let rows = try await QuestionnaireCommand.List.rows(server.store, studyId: "pilot")
        #expect(rows.map(\.id) == ["zeta", "alpha"])
        #expect(rows.map(\.version) == [3, 1])
        #expect(rows.map(\.module) == ["tys", "tyh"])
        #expect(rows.map(\.active) == [true, false])
        #expect(rows.map(\.deactivatedAt) == [nil, "2027-01-15T08:00:00Z"])
        let lines = QuestionnaireCommand.List.tableLines(rows)
        #expect(lines.map { $0.split(separator: " ").map(String.init) } == [
            ["ID", "VERSION", "MODULE", "STATUS", "KIND"],
            ["zeta", "3", "tys", "active", "oneTime"],
            ["alpha", "1", "tyh", "deactivated", "2027-01-15T08:00:00Z", "oneTime"],
        ])
        // Aligned: every column starts at the same place on every line.
        #expect(Set(lines.map { $0.range(of: "KIND")?.lowerBound.utf16Offset(in: $0) ?? $0.range(of: "oneTime")!.lowerBound.utf16Offset(in: $0) }).count == 1)
        // The command itself runs on the database file; an unknown study is refused.
        try await runServerCommand(["questionnaire", "list", "--study", "pilot", "--json"] + db)
        await #expect(throws: ValidationError.self) {
            try await runServerCommand(["questionnaire", "list", "--study", "nowhere"] + db)
        }
    }

    @Test("GET /questionnaires lists only studies the caller is a member of, in join order, each study's questionnaires in import order, with join time, module and definition")
    func memberList() async throws {
        let server = try TestServer()
        try await server.createStudy("zulu")
        try await server.createStudy("alpha", access: .password, password: "letmein")
        try await server.createStudy("waiting", access: .byRequest)
        try await server.createStudy("refused", access: .byRequest)
        try await server.createStudy("gone")
        try await server.createStudy("theirs")
        for study in ["zulu", "alpha", "waiting", "refused", "gone", "theirs"] {
            try await server.addQuestionnaire("\(study)-second", study: study)
        }
        try await server.addQuestionnaire("zulu-first", study: "zulu", module: .tyt)
        try await server.addQuestionnaire("zulu-second", version: 2, study: "zulu")
        try await server.run { client in
            let wim = try await client.signUp("wim", on: server)
            let xia = try await client.signUp("xia", on: server)
            let joinedZulu = server.clock.now()
            _ = try await client.json(.post, "/api/v1/studies/zulu/join", token: wim, body: JoinStudyRequest())
            server.clock.advance(by: 600)
            let joinedAlpha = server.clock.now()
            _ = try await client.json(.post, "/api/v1/studies/alpha/join", token: wim, body: JoinStudyRequest(password: "letmein"))
            for study in ["waiting", "refused", "gone"] {
                _ = try await client.json(.post, "/api/v1/studies/\(study)/join", token: wim, body: JoinStudyRequest())
            }
            _ = try await client.post("/api/v1/studies/gone/leave", token: wim)
            let wimId = try #require(try await server.store.user(login: "wim")).id
            try await server.store.setMembership(studyId: "refused", userId: wimId, status: .denied, now: server.clock.now())
            _ = try await client.json(.post, "/api/v1/studies/theirs/join", token: xia, body: JoinStudyRequest())

            let response = try await client.get("/api/v1/questionnaires", token: wim)
            #expect(response.status == .ok)
            #expect(response.headers[.eTag] != nil)
            let list = try response.decode(AssignedQuestionnaireList.self).questionnaires
            #expect(list.map(\.id) == ["zulu-second", "zulu-first", "alpha-second"])
            #expect(list.map(\.studyId) == ["zulu", "zulu", "alpha"])
            #expect(list.map(\.version) == [2, 1, 1])
            #expect(list.map(\.module) == ["tys", "tyt", "tys"])
            #expect(list.map(\.active) == [true, true, true])
            #expect(list.map(\.joinedAt) == [Timestamps.format(joinedZulu), Timestamps.format(joinedZulu), Timestamps.format(joinedAlpha)])
            // The definition is the stored one, as plain JSON a device decodes itself.
            let definition = list[0].definition
            #expect(definition["id"] == .string("zulu-second"))
            #expect(definition["version"] == .number(2))
            let decoded = try JSONDecoder().decode(QuestionnaireDefinition.self, from: JSONEncoder().encode(definition))
            #expect(decoded.items.count == 2)

            let theirs = try await client.get("/api/v1/questionnaires", token: xia).decode(AssignedQuestionnaireList.self)
            #expect(theirs.questionnaires.map(\.id) == ["theirs-second"])
            #expect(try await client.get("/api/v1/questionnaires").status == .unauthorized)

            // Rejoining a study that was left counts from the new join.
            server.clock.advance(by: 600)
            _ = try await client.json(.post, "/api/v1/studies/gone/join", token: wim, body: JoinStudyRequest())
            let rejoined = try await client.get("/api/v1/questionnaires", token: wim).decode(AssignedQuestionnaireList.self)
            #expect(rejoined.questionnaires.last?.studyId == "gone")
            #expect(rejoined.questionnaires.last?.joinedAt == Timestamps.format(server.clock.now()))
        }
    }

    @Test("GET /questionnaires: no joined study is 200 with an empty list and an ETag; If-None-Match gives 304 until an import, a module change or a deactivation changes the list")
    func memberListETag() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("yves", on: server)
            let empty = try await client.get("/api/v1/questionnaires", token: token)
            #expect(empty.status == .ok)
            #expect(empty.text == #"{"questionnaires":[]}"#)
            let emptyTag = try #require(empty.headers[.eTag])
            let unchanged = try await client.get("/api/v1/questionnaires", token: token, headers: [.ifNoneMatch: emptyTag])
            #expect(unchanged.status == .notModified)
            #expect(unchanged.body.readableBytes == 0)

            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            var tags = [emptyTag]
            func currentTag() async throws -> String {
                let response = try await client.get("/api/v1/questionnaires", token: token, headers: [.ifNoneMatch: tags.last!])
                #expect(response.status == .ok)
                let tag = try #require(response.headers[.eTag])
                #expect(!tags.contains(tag))
                #expect(try await client.get("/api/v1/questionnaires", token: token, headers: [.ifNoneMatch: tag]).status == .notModified)
                return tag
            }
            tags.append(try await currentTag())  // joined
            try await server.addQuestionnaire(version: 2, study: "open")
            tags.append(try await currentTag())  // new version
            try await server.addQuestionnaire(version: 2, study: "open", module: .tyh)
            tags.append(try await currentTag())  // module changed
            _ = try await server.store.setQuestionnaireActive(id: "daily", studyId: "open", active: false, now: server.clock.now())
            tags.append(try await currentTag())  // deactivated
            try await server.addQuestionnaire("second", study: "open")
            tags.append(try await currentTag())  // another questionnaire
            #expect(tags.count == 6)
        }
    }

    @Test("the comparison counts only current members of the questionnaire's study: not who left, not who never joined")
    func comparisonWithinStudy() async throws {
        let server = try TestServer(minimumParticipants: 2)
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            func compare(_ token: String) async throws -> ComparisonReport {
                try await client.get("/api/v1/comparison?questionnaire=daily&label=loudness", token: token).decode(ComparisonReport.self)
            }
            var tokens: [String: String] = [:]
            for (name, loudness) in [("anna", 10.0), ("ben", 30.0), ("carl", 100.0)] {
                let token = try await client.signUp(name, on: server)
                tokens[name] = token
                _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
                let upload = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(loudness: loudness)]))
                #expect(try upload.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.stored])
            }
            // Sheets of someone who never joined (kept from elsewhere) are not counted either.
            let dora = try await client.signUp("dora", on: server)
            let doraId = try #require(try await server.store.user(login: "dora")).id
            let document = try #require(try await server.store.questionnaire(id: "daily", version: 1))
            _ = try await server.store.storeSheets(userId: doraId, sheets: [try SheetValidation.validate(sheet(loudness: 90), against: document)],
                                                   receivedAt: server.clock.now())

            #expect(try await compare(tokens["anna"]!).participants == 3)
            _ = try await client.post("/api/v1/studies/open/leave", token: tokens["carl"]!)
            let result = try await compare(tokens["anna"]!)
            #expect(result.available)
            #expect(result.participants == 2)
            #expect(result.ownMean == 10)
            #expect(result.allParticipantsMean == 20)
            #expect(result.percentile == 25)
            // Whoever is not a member has no mean of their own in the comparison.
            #expect(try await compare(dora).reason == "no_own_answers")

            _ = try await client.json(.post, "/api/v1/studies/open/join", token: tokens["carl"]!, body: JoinStudyRequest())
            let rejoined = try await compare(tokens["carl"]!)
            #expect(rejoined.participants == 3)
            #expect(rejoined.ownMean == 100)
        }
    }

    @Test("the export carries each sheet's microphone and location readings and the module of its questionnaire")
    func exportReadings() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open", module: .tyt)
        let measured = OffsetTimestamp(parsing: "2027-01-15T09:00:30+01:00")!
        var located = sheet(loudness: 35, mood: 1)
        located.sensors = SensorReadings(microphone: MicrophoneReading(dbfs: -42.5, measuredAt: measured),
                                         location: LocationReading(latitude: 49.01, longitude: 12.1, accuracyMeters: 8,
                                                                   altitudeMeters: 338.5, measuredAt: measured))
        var silent = sheet(loudness: 50, mood: 2, startedAt: "2027-01-16T09:00:00+01:00")
        silent.sensors = nil
        let sheets = [located, silent]
        try await server.run { client in
            let token = try await client.signUp("zoe", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            _ = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: sheets))
        }
        let out = server.directory.appendingPathComponent("export")
        for format in ["csv", "json"] {
            try await runServerCommand(["export", "--study", "open", "--format", format, "--out", out.path, "--database", server.databasePath])
        }
        let lines = try String(contentsOf: out.appendingPathComponent("open-answers.csv"), encoding: .utf8)
            .components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 5)
        let readings = "tyt,-42.5,2027-01-15T09:00:30+01:00,49.01,12.1,338.5,8,2027-01-15T09:00:30+01:00"
        // consent_version (empty: the study has no consent), then the prompt columns, empty for
        // sheets that answer no prompt, the language (none recorded), then site and arm (none: no
        // sites, not randomised).
        #expect(lines[1].hasSuffix("," + readings + ",,,,,,,,"))
        #expect(lines[2].hasSuffix("," + readings + ",,,,,,,,"))
        #expect(lines[3].hasSuffix(",tyt,,,,,,,,,,,,,,,"))

        let rows = try JSONDecoder().decode([ExportRow].self, from: Data(contentsOf: out.appendingPathComponent("open-answers.json")))
        #expect(rows.count == 4)
        let first = rows[0]
        #expect(first.module == "tyt")
        #expect(first.microphoneDbfs == -42.5)
        #expect(first.microphoneMeasuredAt == "2027-01-15T09:00:30+01:00")
        #expect(first.latitude == 49.01)
        #expect(first.longitude == 12.1)
        #expect(first.altitudeMeters == 338.5)
        #expect(first.accuracyMeters == 8)
        #expect(first.locationMeasuredAt == "2027-01-15T09:00:30+01:00")
        #expect(rows[3].latitude == nil)
        #expect(rows[3].microphoneDbfs == nil)
    }
}
