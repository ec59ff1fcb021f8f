import Foundation
import HTTPTypes
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Issue 49 in the console: a study's texts in every language it has, the settings form with a
/// field per language labelled in the reader's language, and nothing lost when it is saved.
@Suite("Console: the study's texts in the five languages", .timeLimit(.minutes(10)))
struct ConsoleLanguageTests {
    @Test("the settings form shows a title and a description field per language, labelled in the reader's language, and saving it keeps every language's text")
    func settingsKeepEveryLanguage() async throws {
        try await StoreKind.sqlite.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let title = LocalizedText(["en": "Quiet", "de": "Ruhe", "es": "Calma", "el": "Ησυχία", "nl": "Stilte"])
                let administration = StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                try await administration.create("quiet", StudySettings(title: title, description: .some(LocalizedText(["el": "Μια μελέτη για την ησυχία"])),
                                                                      access: .public, modules: ["tyt"]))
                let owner = try await fixture.enrolledStaff("olga")
                try await fixture.role(.owner, owner, "quiet")
                let browser = PortalBrowser(client)
                browser.extraHeaders[.acceptLanguage] = "el"
                try await fixture.signIn(browser, owner)
                let page = ConsolePage.settings.uri(study: "quiet")
                let form = try await browser.get(page).text
                #expect(form.contains("<html lang=\"el\""))
                #expect(form.contains("<label for=\"titleEl\">Τίτλος (ελληνικά)</label>")
                        && form.contains("<input id=\"titleEl\" name=\"titleEl\" type=\"text\" value=\"Ησυχία\" lang=\"el\">"), "\(form)")
                #expect(form.contains("<textarea id=\"descriptionEl\" name=\"descriptionEl\" rows=\"3\" lang=\"el\">Μια μελέτη για την ησυχία</textarea>"))
                // The description is Greek only: the other languages' readers read it in Greek,
                // which the page says (every title is there).
                #expect(form.contains("<li>Όσοι διαβάζουν Deutsch διαβάζουν 1 κείμενο σε Ελληνικά: η περιγραφή</li>"), "\(form)")
                #expect(form.contains("<li>Όσοι διαβάζουν Nederlands διαβάζουν 1 κείμενο σε Ελληνικά: η περιγραφή</li>"))
                #expect(!form.contains("Όσοι διαβάζουν Ελληνικά"))
                #expect(form.contains("<option value=\"\" selected>"), "no languages declared yet")
                // Saved as a browser sends it: every field; one language's title changed.
                var fields = ["access": "public", "module-tyt": "on", "running": "on", "descriptionEl": "Μια μελέτη για την ησυχία"]
                for (code, text) in title.values { fields["title" + code.capitalized] = text }
                fields["titleNl"] = "Stilte, graag"
                let saved = try await browser.submit(page, to: page, fields)
                #expect(saved.headers[.location]?.hasSuffix("settings?notice=saved") == true, "\(saved.text)")
                let stored = try #require(try await fixture.store.study(id: "quiet"))
                #expect(stored.title.values == ["en": "Quiet", "de": "Ruhe", "es": "Calma", "el": "Ησυχία", "nl": "Stilte, graag"])
                #expect(stored.description?.values == ["el": "Μια μελέτη για την ησυχία"])
                #expect(stored.languages == nil)
                // Declared: Greek first, then English. Now only Greek and English are checked,
                // and the Greek readers read everything in Greek.
                fields["languageFirst"] = "el"
                fields["language-en"] = "on"
                fields["language-el"] = "on"
                let declared = try await browser.submit(page, to: page, fields)
                #expect(declared.headers[.location]?.hasSuffix("settings?notice=saved") == true, "\(declared.text)")
                #expect(try await fixture.store.study(id: "quiet")?.languages == ["el", "en"])
                let after = try await browser.get(page).text
                #expect(after.contains("<option value=\"el\" selected>") && after.contains("id=\"language-en\" checked"))
                #expect(after.contains("<li>Όσοι διαβάζουν English διαβάζουν 1 κείμενο σε Ελληνικά: η περιγραφή</li>"), "\(after)")
                #expect(!after.contains("Όσοι διαβάζουν Deutsch"))
                // A questionnaire with one text in English only: the Questionnaires tab counts it for
                // Greek, and the settings page names it among what Greek readers read in English.
                let document = try QuestionnaireImport.document(from: Data("""
                    {"id": "calm", "version": 1, "title": {"en": "Calm", "el": "Ηρεμία"}, "kind": "oneTime",
                     "items": [{"type": "yesNo", "label": "q1", "text": {"en": "Calm now?"}}]}
                    """.utf8), studyId: "quiet")
                _ = try await fixture.store.addQuestionnaire(document, module: .tyt, now: fixture.clock.now())
                let listed = try await browser.get(ConsolePage.questionnaires.uri(study: "quiet")).text
                #expect(listed.contains("<td id=\"missing-calm\">Ελληνικά 1</td>") && listed.contains("<td>Ηρεμία</td>"), "\(listed)")
                let named = try await browser.get(page).text
                #expect(named.contains("<li>Όσοι διαβάζουν Ελληνικά διαβάζουν 1 κείμενο σε English: ερωτηματολόγιο calm (1)</li>"), "\(named)")
            }
        }
    }

    @Test("staff mails follow the member's language: `staff add --language`, then the console's language at each sign-in; an address new to the console gets English and German")
    func staffMailsInTheirLanguage() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let service = StaffService(environment: fixture.environment)
            let eleni = try await service.add(name: "Eleni", email: "eleni@team.example.org", admin: false, language: "el", by: .operator)
            #expect(eleni.mail.subject == PortalText.text("mail.staffEnrolment.subject", "el"), "\(eleni.mail.subject)")
            #expect(!eleni.mail.body.contains("----"), "one language only")
            let anna = try await service.add(name: "Anna", email: "anna@team.example.org", admin: false, by: .operator)
            #expect(anna.mail.subject == PortalText.text("mail.staffEnrolment.subject", "en") + " / " + PortalText.text("mail.staffEnrolment.subject", "de"))
            await #expect(throws: APIError.self) {
                try await service.add(name: "Fred", email: "fred@team.example.org", admin: false, language: "fr", by: .operator)
            }
            #expect(try await fixture.store.staffMember(email: "fred@team.example.org") == nil)

            // Signing in in Dutch makes Dutch the owner's language.
            let olga = try await fixture.enrolledStaff("olga")
            try await fixture.study("quiet")
            try await fixture.role(.owner, olga, "quiet")
            let browser = PortalBrowser(client)
            browser.extraHeaders[.acceptLanguage] = "nl"
            try await fixture.signIn(browser, olga)
            #expect(try await fixture.store.staffMember(id: olga.id)?.language == "nl")

            // An invitation to Eleni, who has a language, is in Greek; one to a new address in English and German.
            let team = ConsolePage.team.uri(study: "quiet")
            for (email, name) in [("eleni@team.example.org", "Eleni"), ("new@team.example.org", "New")] {
                let invited = try await browser.submit(team, to: team, ["email": email, "name": name, "role": "viewer"])
                #expect(invited.status == .seeOther, "\(invited.text)")
            }
            await fixture.environment.mail.idle()
            let subjects = try server.spool.messages().map { try String(contentsOf: $0.url, encoding: .utf8) }
                .compactMap { text in MailHeader.value("Subject", in: text).map { (text.contains("To: eleni@") ? "eleni" : "new", $0) } }
            #expect(subjects.contains { $0 == ("eleni", PortalText.text("mail.teamInvitation.subject", "el")) }, "\(subjects)")
            #expect(subjects.contains { $0 == ("new", PortalText.text("mail.teamInvitation.subject", "en") + " / " + PortalText.text("mail.teamInvitation.subject", "de")) }, "\(subjects)")
        }
    }
}
