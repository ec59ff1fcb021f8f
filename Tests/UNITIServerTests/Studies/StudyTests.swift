import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Studies", .timeLimit(.minutes(10)))
struct StudyTests {
    @Test("join rules: public at once, password needs the password, by-request waits for approval, leaving may be forbidden")
    func joinRules() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.createStudy("secret", access: .password, password: "letmein")
        try await server.createStudy("curated", access: .byRequest)
        try await server.createStudy("locked", mayLeave: false)
        try await server.run { client in
            let token = try await client.signUp("gina", on: server)
            let empty = JoinStudyRequest()
            #expect(try await client.json(.post, "/api/v1/studies/open/join", token: token, body: empty).decode(MembershipResponse.self).membership == .member)

            #expect(try await client.json(.post, "/api/v1/studies/secret/join", token: token, body: empty).errorCode == "study_password_required")
            #expect(try await client.json(.post, "/api/v1/studies/secret/join", token: token, body: JoinStudyRequest(password: "wrong")).errorCode == "wrong_study_password")
            #expect(try await client.json(.post, "/api/v1/studies/secret/join", token: token, body: JoinStudyRequest(password: "letmein")).status == .ok)

            let pending = try await client.json(.post, "/api/v1/studies/curated/join", token: token, body: empty)
            #expect(pending.status == .accepted)
            #expect(try pending.decode(MembershipResponse.self).membership == .pending)

            #expect(try await client.json(.post, "/api/v1/studies/locked/join", token: token, body: empty).status == .ok)
            let refused = try await client.post("/api/v1/studies/locked/leave", token: token)
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "leave_forbidden")
            #expect(try refused.decode(APIErrorBody.self).error.message.contains("does not let participants leave"))
            #expect(try await client.post("/api/v1/studies/open/leave", token: token).decode(MembershipResponse.self).membership == .left)

            let mine = try await client.get("/api/v1/studies?scope=mine", token: token).decode(StudyList.self)
            #expect(Set(mine.studies.map(\.id)) == ["secret", "locked"])
        }
        // The coordinator approves the request.
        try await runServerCommand(["join-requests", "approve", "curated", "gina", "--database", server.databasePath])
        let gina = try #require(try await server.store.user(login: "gina"))
        #expect(try await server.store.membership(studyId: "curated", userId: gina.id) == .member)
    }

    @Test("every study is listed with its access; a non-member of a password or by-request study reads what the detail route shows: no description, no questionnaires")
    func visibility() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.createStudy("secret", access: .password, password: "letmein")
        try await server.createStudy("other-secret", access: .password, password: "letmein")
        try await server.createStudy("asking", access: .byRequest)
        for id in ["open", "secret", "other-secret", "asking"] {
            var study = try #require(try await server.store.study(id: id))
            study.description = LocalizedText(["en": "About \(id)"])
            try await server.store.updateStudy(study, now: server.clock.now())
            try await server.addQuestionnaire("q-\(id)", study: id)
        }
        try await server.run { client in
            let token = try await client.signUp("hans", on: server)
            _ = try await client.json(.post, "/api/v1/studies/secret/join", token: token, body: JoinStudyRequest(password: "letmein"))
            let visible = try await client.get("/api/v1/studies", token: token).decode(StudyList.self)
            let byID = Dictionary(uniqueKeysWithValues: visible.studies.map { ($0.id, $0) })
            #expect(Set(byID.keys) == ["open", "secret", "other-secret", "asking"])
            #expect(byID["other-secret"]?.access == .password && byID["asking"]?.access == .byRequest)
            #expect(byID["other-secret"]?.membership == MembershipStatus.none)
            // The list says no more than the detail route to the same person.
            for (id, listed) in byID {
                let detail = try await client.get("/api/v1/studies/\(id)", token: token).decode(StudyInfo.self)
                #expect(listed == detail, "\(id)")
            }
            #expect(byID["other-secret"]?.description == nil && byID["asking"]?.description == nil)
            #expect(byID["other-secret"]?.questionnaires.isEmpty == true && byID["asking"]?.questionnaires.isEmpty == true)
            #expect(byID["secret"]?.description?.text(in: "en") == "About secret", "a member reads it")
            #expect(byID["open"]?.description?.text(in: "en") == "About open" && byID["open"]?.questionnaires.count == 1)
            let hidden = try await client.get("/api/v1/studies/other-secret/questionnaires", token: token)
            #expect(hidden.status == .forbidden)
        }
    }

    @Test("questionnaires are served with an ETag; If-None-Match gets 304 until a new version is imported")
    func questionnaireETag() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("ida", on: server)
            let first = try await client.get("/api/v1/studies/open/questionnaires", token: token)
            #expect(first.status == .ok)
            let tag = try #require(first.headers[.eTag])
            #expect(try first.decode(QuestionnaireList.self).questionnaires.map(\.version) == [1])
            let again = try await client.get("/api/v1/studies/open/questionnaires", token: token, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)

            try await server.addQuestionnaire(version: 2, study: "open")
            let changed = try await client.get("/api/v1/studies/open/questionnaires", token: token, headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok)
            #expect(try changed.decode(QuestionnaireList.self).questionnaires.map(\.version) == [2])
            // The older version stays readable for the answers given to it.
            #expect(try await client.get("/api/v1/questionnaires/daily/versions/1", token: token).status == .ok)
        }
    }
}
