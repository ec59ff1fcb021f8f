import Foundation
import Testing
import UNITIProtocol
@testable import UNITIServer

/// The portal's side of issue 30: consent shown and agreed when joining, a new version agreed on
/// the studies page, the keep-or-delete choice on leaving, and account deletion from the profile.
@Suite("Portal: consent, leaving and account deletion", .timeLimit(.minutes(10)))
struct PortalConductTests {
    @Test("joining shows the consent and needs the box ticked; the version is recorded; a new version is agreed on the studies page")
    func consentOnJoining() async throws {
        let server = try TestServer()
        try await server.store.createStudy(StudyRecord(id: "s", title: LocalizedText(["en": "Study s"]),
                                                       consent: LocalizedText(["en": "We keep <your> answers."]), modules: [.tyt]),
                                           now: server.clock.now())
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let page = try await browser.get("/studies")
            #expect(page.text.contains("We keep &lt;your&gt; answers."), "the consent is shown, escaped")
            #expect(page.text.contains(#"name="consentVersion" value="1" required"#))

            let unticked = try await browser.submit("/studies", to: "/studies/join", ["study": "s"])
            #expect(unticked.status == .conflict)
            #expect(unticked.text.contains("tick the box"))
            let joined = try await browser.submit("/studies", to: "/studies/join", ["study": "s", "consentVersion": "1"])
            #expect(joined.status == .seeOther)
            let anna = try #require(try await server.store.user(login: "anna"))
            #expect(try await server.store.consentAgreements(userId: anna.id).map(\.version) == [1])
            let member = try await browser.get("/studies").text
            #expect(member.contains("You agreed to version 1 of the consent.") && member.contains("We keep &lt;your&gt; answers."),
                    "the member reads what they agreed to")

            var study = try #require(try await server.store.study(id: "s"))
            study.consent = LocalizedText(["en": "We keep your answers for ten years."])
            try await server.store.updateStudy(study, now: server.clock.now())
            let asked = try await browser.get("/studies")
            #expect(asked.text.contains(#"id="consent-form-s""#) && asked.text.contains("ten years"))
            let agreed = try await browser.submit("/studies", to: "/studies/consent", ["study": "s", "consentVersion": "2"])
            #expect(agreed.status == .seeOther)
            #expect(try await server.store.agreedConsentVersions(userId: anna.id) == ["s": 2])
            #expect(try await !browser.get("/studies").text.contains(#"id="consent-form-s""#))
        }
    }

    @Test("leaving offers keep or delete; delete removes the answers to the study")
    func leavingWithDeletion() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open", module: .tyt)
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            #expect(try await browser.submit("/studies", to: "/studies/join", ["study": "open"]).status == .seeOther)
            let token = try await client.apiToken("anna")
            #expect(try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet()])).status == .ok)
            #expect(try await browser.get("/studies").text.contains(#"id="delete-answers-open""#))
            let left = try await browser.submit("/studies", to: "/studies/leave", ["study": "open", "answers": "delete"])
            #expect(left.headers[.location] == "/studies?notice=studyLeftDeleted")
            #expect(try await server.store.exportRows(studyId: "open").isEmpty)
        }
    }

    @Test("the profile page deletes the account after the password: the session ends and the data is gone")
    func accountDeletionFromProfile() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let wrong = try await browser.submit("/profile", to: "/profile/delete", ["password": "guess", "sure": "on"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains(#"id="delete-error""#))
            #expect(try await server.store.user(login: "anna") != nil)
            let done = try await browser.submit("/profile", to: "/profile/delete", ["password": "correct horse", "sure": "on"])
            #expect(done.headers[.location] == "/login?notice=accountDeleted")
            #expect(try await server.store.user(login: "anna") == nil)
            #expect(try await browser.get("/profile").headers[.location]?.hasPrefix("/login") == true, "the session ended")
        }
    }
}
