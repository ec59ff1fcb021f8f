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
            }
        }
    }
}
