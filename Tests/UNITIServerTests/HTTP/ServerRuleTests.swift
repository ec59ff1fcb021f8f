import ArgumentParser
import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Rules the server held without a test holding them (issue 28): a study's start and end, the
/// times of a sheet, the limits of a batch, passwords bcrypt would cut, the coordinator's
/// decisions on join requests, and the lifetimes of tokens and mailed codes at the HTTP level.
@Suite("Server rules", .timeLimit(.minutes(10)))
struct ServerRuleTests {
    @Test("a study is joined only between its start and its end; --starts and --ends are checked when set")
    func studyTimes() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        let now = server.clock.now()
        try await runServerCommand(["study", "create", "later", "--title", "Later", "--access", "public",
                                    "--starts", Timestamps.format(now.addingTimeInterval(1800)),
                                    "--ends", Timestamps.format(now.addingTimeInterval(3000))] + db)
        await #expect(throws: APIError.invalid("invalid_dates", "The end must be after the start.")) {
            try await runServerCommand(["study", "create", "backwards", "--title", "B", "--access", "public",
                                        "--starts", "2027-02-01T00:00:00Z", "--ends", "2027-01-01T00:00:00Z"] + db)
        }
        await #expect(throws: ValidationError.self) {
            try await runServerCommand(["study", "create", "nonsense", "--title", "N", "--access", "public", "--starts", "next tuesday"] + db)
        }
        #expect(try await server.store.study(id: "backwards") == nil)
        #expect(try await server.store.study(id: "nonsense") == nil)
        try await server.run { client in
            let token = try await client.signUp("ida", on: server)
            let early = try await client.json(.post, "/api/v1/studies/later/join", token: token, body: JoinStudyRequest())
            #expect(early.status == .conflict && early.errorCode == "study_closed")
            server.clock.advance(by: 1801)
            let open = try await client.json(.post, "/api/v1/studies/later/join", token: token, body: JoinStudyRequest())
            #expect(open.status == .ok)
            let other = try await client.signUp("ole", on: server)
            server.clock.advance(by: 1200)
            let late = try await client.json(.post, "/api/v1/studies/later/join", token: other, body: JoinStudyRequest())
            #expect(late.status == .conflict && late.errorCode == "study_closed")
        }
        #expect(try await server.store.membership(studyId: "later", userId: #require(server.store.user(login: "ida")).id) == .member)
    }

    @Test("a sheet that ends before it starts, or has an answer from before its start, is 422 invalid_time and nothing of its batch is stored")
    func sheetTimes() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("uma", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            var backwards = sheet()
            backwards.endedAt = OffsetTimestamp(parsing: "2027-01-15T08:59:00+01:00")
            var early = sheet()
            early.answers["mood"]?.answeredAt = OffsetTimestamp(parsing: "2027-01-15T08:58:00+01:00")!
            for bad in [backwards, early] {
                let response = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(), bad]))
                #expect(response.status == .unprocessableContent && response.errorCode == "invalid_time")
            }
            // A second's difference between the clocks of a sheet's start and its first answer is tolerated.
            var close = sheet()
            close.answers["loudness"]?.answeredAt = OffsetTimestamp(parsing: "2027-01-15T08:59:59.500+01:00")!
            let fine = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [close]))
            #expect(fine.status == .ok)
            #expect(try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self).total == 1)
        }
    }

    @Test("a batch holds 1 to 500 sheets with distinct ids; records 1 to 500 with a client id of 1 to 128 characters and a payload of at most 64 KiB")
    func batchLimits() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("eli", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            let empty = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: []))
            #expect(empty.status == .unprocessableContent && empty.errorCode == "invalid_batch")
            let tooMany = try await client.json(.post, "/api/v1/sheets", token: token,
                                                body: AnswerSheetBatch(sheets: (0..<501).map { _ in sheet() }))
            #expect(tooMany.status == .unprocessableContent && tooMany.errorCode == "invalid_batch")
            let full = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: (0..<500).map { _ in sheet() }))
            #expect(full.status == .ok)
            #expect(try full.decode(AnswerSheetBatchResult.self).results.allSatisfy { $0.outcome == .stored })
            let twice = sheet()
            let repeated = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [twice, sheet(), twice]))
            #expect(repeated.status == .unprocessableContent && repeated.errorCode == "duplicate_sheet_id")
            #expect(try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self).total == 500)

            func record(_ clientId: String, payload: JSONValue? = .object(["note": .string("x")])) -> ModuleRecordUpsert {
                ModuleRecordUpsert(moduleId: "tn", clientId: clientId, updatedAt: "2027-01-15T09:00:00.000+01:00", payload: payload)
            }
            func push(_ records: [ModuleRecordUpsert]) async throws -> TestResponse {
                try await client.json(.post, "/api/v1/records", token: token, body: ModuleRecordBatch(records: records))
            }
            #expect(try await push([]).errorCode == "invalid_batch")
            #expect(try await push((0..<501).map { record("r\($0)") }).errorCode == "invalid_batch")
            #expect(try await push([record(String(repeating: "a", count: 129))]).errorCode == "invalid_client_id")
            #expect(try await push([record("")]).errorCode == "invalid_client_id")
            #expect(try await push([record("with space")]).errorCode == "invalid_client_id")
            #expect(try await push([record("r", payload: nil)]).errorCode == "missing_payload")
            let big = JSONValue.object(["note": .string(String(repeating: "x", count: 64 * 1024))])
            #expect(try await push([record("big", payload: big)]).errorCode == "payload_too_large")
            #expect(try await push((0..<500).map { record("r\($0)") }).status == .ok)
            let pulled = try await client.get("/api/v1/records?limit=200", token: token).decode(ModuleRecordPage.self)
            #expect(pulled.records.count == 200 && pulled.more)
        }
    }

    @Test("a password over 72 bytes (bcrypt would cut it) is refused at registration, reset and change, counted in bytes, not characters")
    func longPasswords() async throws {
        let server = try TestServer()
        // 36 two-byte characters: 72 bytes, the most bcrypt reads; one more is 74.
        let longest = String(repeating: "ü", count: 36)
        let tooLong = longest + "ü"
        try await server.run { client in
            let refused = try await client.json(.post, "/api/v1/account/register",
                                                body: RegisterRequest(username: "lea", email: "lea@example.org", password: tooLong))
            #expect(refused.status == .unprocessableContent && refused.errorCode == "password_too_long")
            let token = try await client.signUp("lea", on: server, password: longest)
            let change = try await client.json(.post, "/api/v1/account/password", token: token,
                                               body: PasswordChangeRequest(currentPassword: longest, newPassword: tooLong))
            #expect(change.errorCode == "password_too_long")
            _ = try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "lea@example.org"))
            let code = try await server.mailedCode(to: "lea@example.org", subject: "reset")
            let reset = try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                              body: PasswordResetConfirmation(token: code, newPassword: tooLong))
            #expect(reset.errorCode == "password_too_long")
            // The longest accepted password still logs in, and one that differs only in its last byte does not.
            let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "lea", password: longest))
            #expect(login.status == .ok)
            let almost = String(repeating: "ü", count: 35) + "ö"
            let wrong = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "lea", password: almost))
            #expect(wrong.status == .unauthorized)
        }
    }

    @Test("join-requests: list shows pending requests (and decided ones with --all); deny keeps the person out; approving someone who never asked is refused")
    func joinRequestDecisions() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        try await server.createStudy("closed", access: .byRequest)
        try await server.run { client in
            for name in ["ana", "ben"] {
                let token = try await client.signUp(name, on: server)
                let asked = try await client.json(.post, "/api/v1/studies/closed/join", token: token, body: JoinStudyRequest())
                #expect(try asked.decode(MembershipResponse.self).membership == .pending)
            }
            _ = try await client.signUp("cem", on: server)
        }
        let pending = try await server.store.joinRequests(studyId: "closed", pendingOnly: true, offset: 0, limit: 10)
        #expect(pending.requests.map(\.username) == ["ana", "ben"] && pending.total == 2)
        try await runServerCommand(["join-requests", "approve", "closed", "ana"] + db)
        try await runServerCommand(["join-requests", "deny", "closed", "ben@example.org"] + db)
        let never = try #require(await #expect(throws: APIError.self) { try await runServerCommand(["join-requests", "approve", "closed", "cem"] + db) })
        #expect(never.code == "no_request")
        await #expect(throws: ValidationError.self) { try await runServerCommand(["join-requests", "approve", "closed", "nobody"] + db) }
        let ids = try await ["ana", "ben", "cem"].asyncMap { try #require(try await server.store.user(login: $0)).id }
        #expect(try await ids.asyncMap { try await server.store.membership(studyId: "closed", userId: $0) } == [.member, .denied, .none])
        #expect(try await server.store.joinRequests(studyId: "closed", pendingOnly: true, offset: 0, limit: 10).total == 0)
        let all = try await server.store.joinRequests(studyId: nil, pendingOnly: false, offset: 0, limit: 10)
        #expect(all.requests.map(\.status) == [.member, .denied] && all.total == 2)
        // A denied person cannot make themselves a member; asking again makes a new pending request.
        try await server.run { client in
            let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "ben", password: "correct horse"))
            let token = try login.decode(SessionTokens.self).accessToken
            let again = try await client.json(.post, "/api/v1/studies/closed/join", token: token, body: JoinStudyRequest())
            #expect(try again.decode(MembershipResponse.self).membership == .pending)
        }
    }

    @Test("an access token lives an hour, a refresh token 30 days and a mailed code 48 hours, by the server's clock")
    func lifetimes() async throws {
        let server = try TestServer()
        try await server.run { client in
            let email = "tom@example.org"
            _ = try await client.json(.post, "/api/v1/account/register",
                                      body: RegisterRequest(username: "tom", email: email, password: "correct horse"))
            let code = try await server.mailedCode(to: email)
            server.clock.advance(by: 48 * 3600 + 1)
            let stale = try await client.json(.post, "/api/v1/account/activate", body: TokenRequest(token: code))
            #expect(stale.errorCode == "invalid_token")
            _ = try await client.json(.post, "/api/v1/account/register",
                                      body: RegisterRequest(username: "tim", email: "tim@example.org", password: "correct horse"))
            let fresh = try await server.mailedCode(to: "tim@example.org")
            server.clock.advance(by: 48 * 3600 - 60)
            #expect(try await client.json(.post, "/api/v1/account/activate", body: TokenRequest(token: fresh)).status == .ok)

            let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "tim", password: "correct horse"))
            var tokens = try login.decode(SessionTokens.self)
            server.clock.advance(by: 3600 - 1)
            #expect(try await client.get("/api/v1/account/profile", token: tokens.accessToken).status == .ok)
            server.clock.advance(by: 2)
            #expect(try await client.get("/api/v1/account/profile", token: tokens.accessToken).status == .unauthorized)
            // Refreshed every 29 days, a session outlives the refresh token's 30 days.
            for _ in 0..<3 {
                server.clock.advance(by: 29 * 86_400)
                let refreshed = try await client.json(.post, "/api/v1/account/refresh", body: RefreshRequest(refreshToken: tokens.refreshToken))
                #expect(refreshed.status == .ok)
                tokens = try refreshed.decode(SessionTokens.self)
            }
            #expect(try await client.get("/api/v1/account/profile", token: tokens.accessToken).status == .ok)
            server.clock.advance(by: 30 * 86_400 + 1)
            let expired = try await client.json(.post, "/api/v1/account/refresh", body: RefreshRequest(refreshToken: tokens.refreshToken))
            #expect(expired.status == .unauthorized && expired.errorCode == "invalid_refresh_token")
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
