import ArgumentParser
import Foundation
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Consent, leaving with deletion, account deletion and the data download through the API
/// (issue 30), with the server driven in-process on a real SQLite file.
@Suite("Consent and erasure through the API", .timeLimit(.minutes(10)))
struct ConductRouteTests {
    func consentStudy(_ server: TestServer) async throws {
        try await server.store.createStudy(StudyRecord(id: "s", title: LocalizedText(["en": "Study s"]),
                                                       consent: LocalizedText(["en": "We keep your answers."]), modules: [.tyt]),
                                           now: server.clock.now())
        try await server.addQuestionnaire(study: "s", module: .tyt)
    }

    @Test("joining needs the current consent version; a new version holds back uploads with consent_required until agreed, then they are stored once")
    func consentGatesJoiningAndUploads() async throws {
        let server = try TestServer()
        try await consentStudy(server)
        try await server.run { client in
            let token = try await client.signUp("ada", on: server)
            let shown = try await client.get("/api/v1/studies/s", token: token).decode(StudyInfo.self)
            #expect(shown.consentVersion == 1 && shown.consentAgreed == nil && shown.consent != nil)

            let blind = try await client.json(.post, "/api/v1/studies/s/join", token: token, body: JoinStudyRequest())
            #expect(blind.status == .conflict && blind.errorCode == "consent_required", "joining without reading the consent")
            #expect(try await server.store.membership(studyId: "s", userId: 1) == MembershipStatus.none)
            let joined = try await client.json(.post, "/api/v1/studies/s/join", token: token, body: JoinStudyRequest(consentVersion: 1))
            #expect(joined.status == .ok)
            let agreed = try await client.get("/api/v1/studies/s/consent", token: token).decode(ConsentStatus.self)
            #expect(agreed.currentVersion == 1 && agreed.agreements.map(\.version) == [1])
            #expect(agreed.agreements.first?.agreedAt == Timestamps.format(server.clock.now()))
            #expect(try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet()])).status == .ok)

            // The coordinator changes the text: a new version, and answers wait for the agreement.
            var study = try #require(try await server.store.study(id: "s"))
            study.consent = LocalizedText(["en": "We keep your answers and your location."])
            try await server.store.updateStudy(study, now: server.clock.now())
            let waiting = sheet()
            let refused = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [waiting]))
            #expect(refused.status == .conflict && refused.errorCode == AnswerSheetBatchResult.consentRequiredCode)
            #expect(refused.text.contains("version 2"), "the reason names the version: \(refused.text)")
            let listed = try await client.get("/api/v1/studies?scope=mine", token: token).decode(StudyList.self)
            #expect(listed.studies.first?.needsConsent == true)

            let stale = try await client.json(.post, "/api/v1/studies/s/consent", token: token, body: ConsentRequest(version: 1))
            #expect(stale.status == .conflict && stale.errorCode == "consent_required")
            let current = try await client.json(.post, "/api/v1/studies/s/consent", token: token, body: ConsentRequest(version: 2))
            #expect(current.status == .ok)
            #expect(try current.decode(ConsentStatus.self).agreements.map(\.version) == [1, 2])
            let accepted = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [waiting]))
            #expect(try accepted.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.stored])
            let again = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [waiting]))
            #expect(try again.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.duplicate])
            #expect(try await server.store.exportRows(studyId: "s").map(\.consentVersion).allSatisfy { $0 == 2 })
        }
    }

    @Test("leaving with deleteAnswers deletes the study's sheets; leaving with no body keeps them")
    func leaveChoosesWhatStays() async throws {
        let server = try TestServer()
        try await server.createStudy("a")
        try await server.addQuestionnaire(study: "a", module: .tyt)
        try await server.run { client in
            for (name, body) in [("ada", Optional(LeaveStudyRequest(deleteAnswers: true))), ("bob", nil)] {
                let token = try await client.signUp(name, on: server)
                _ = try await client.json(.post, "/api/v1/studies/a/join", token: token, body: JoinStudyRequest())
                #expect(try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet()])).status == .ok)
                let left = if let body { try await client.json(.post, "/api/v1/studies/a/leave", token: token, body: body) }
                           else { try await client.post("/api/v1/studies/a/leave", token: token) }
                #expect(left.status == .ok, "\(left.text)")
            }
            let participants = Set(try await server.store.exportRows(studyId: "a").map(\.participant))
            let bob = try #require(try await server.store.user(login: "bob"))
            #expect(participants == [bob.pseudonym], "ada's answers went, bob's stayed")
        }
    }

    @Test("account deletion needs the password, then the account, its sessions and its data are gone; the data download comes first")
    func accountDeletion() async throws {
        let server = try TestServer()
        try await consentStudy(server)
        try await server.run { client in
            let token = try await client.signUp("ada", on: server)
            _ = try await client.json(.post, "/api/v1/studies/s/join", token: token, body: JoinStudyRequest(consentVersion: 1))
            _ = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet()]))
            let download = try await client.get("/api/v1/account/data", token: token)
            #expect(download.status == .ok)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(download.text.utf8)) as? [String: Any])
            let membership = try #require((document["memberships"] as? [[String: Any]])?.first)
            #expect((membership["consents"] as? [[String: Any]])?.first?["version"] as? Int == 1, "the download holds the consent agreed")
            #expect((document["sheets"] as? [Any])?.count == 1)

            let wrong = try await client.json(.post, "/api/v1/account/delete", token: token, body: AccountDeletionRequest(password: "guess"))
            #expect(wrong.status == .unauthorized)
            #expect(try await server.store.user(login: "ada") != nil)
            let deleted = try await client.json(.post, "/api/v1/account/delete", token: token, body: AccountDeletionRequest(password: "correct horse"))
            #expect(deleted.status == .ok, "\(deleted.text)")
            #expect(try await server.store.user(login: "ada") == nil)
            #expect(try await client.get("/api/v1/account/profile", token: token).status == .unauthorized)
            #expect(try await server.store.exportRows(studyId: "s").isEmpty)
            // The name and the address are free again: nothing of the account is kept.
            let again = try await client.json(.post, "/api/v1/account/register",
                                              body: RegisterRequest(username: "ada", email: "ada@example.org", password: "correct horse"))
            #expect(again.status == .created)
            #expect(try await server.store.user(login: "ada@example.org") != nil)
        }
    }
}

@Suite("Consent files for study create and update", .timeLimit(.minutes(5)))
struct ConsentFileCommandTests {
    @Test("--consent takes one Markdown file per language of the study; a bad file is one line naming it, and nothing changes")
    func consentFiles() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        func file(_ name: String, _ text: String) throws -> String {
            let url = server.directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        try await runServerCommand(["study", "create", "pilot", "--title", #"{"en":"Pilot","de":"Pilotstudie"}"#,
                                    "--consent", try file("consent.en.md", "# Consent\nWe keep answers."),
                                    "--consent", try file("consent.de.md", "# Einwilligung\nWir speichern Antworten.")] + db)
        let created = try #require(try await server.store.study(id: "pilot"))
        #expect(created.consentVersion == 1)
        #expect(created.consent == LocalizedText(["en": "# Consent\nWe keep answers.", "de": "# Einwilligung\nWir speichern Antworten."]))

        func refusal(_ consent: [String]) async throws -> String {
            let error = try #require(await #expect(throws: APIError.self) {
                try await runServerCommand(["study", "update", "pilot"] + consent.flatMap { ["--consent", $0] } + db)
            })
            return error.message
        }
        let missing = try await refusal([try file("v2.en.md", "New text.")])
        #expect(missing.contains("give the consent in 'de' too"), "\(missing)")
        let empty = try await refusal([try file("v2.en.md", "New text."), try file("empty.de.md", "  \n")])
        #expect(empty.contains("empty.de.md") && empty.contains("empty"), "\(empty)")
        let absent = try await refusal([server.directory.appendingPathComponent("gone.en.md").path])
        #expect(absent.contains("gone.en.md") && absent.contains("no such file"), "\(absent)")
        let badLanguage = try await refusal([try file("consent.english.md", "Text.")])
        #expect(badLanguage.contains("not a language code"), "\(badLanguage)")
        let twice = try await refusal([try file("a.en.md", "One."), try file("b.en.md", "Two.")])
        #expect(twice.contains("two files for language 'en'"), "\(twice)")
        for message in [missing, empty, absent, badLanguage, twice] { #expect(!message.contains("\n"), "one line: \(message)") }
        #expect(try await server.store.study(id: "pilot")?.consentVersion == 1, "a refused update changes nothing")

        try await runServerCommand(["study", "update", "pilot", "--consent", try file("v2.en.md", "New text."),
                                    "--consent", try file("v2.de.md", "Neuer Text.")] + db)
        #expect(try await server.store.study(id: "pilot")?.consentVersion == 2)
    }
}
