import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48: randomising from a participant's console page.
@Suite("Console: randomising from a participant's page", .timeLimit(.minutes(10)))
struct ConsoleTrialTests {
    @Test("the page names what stands in the way, offers the levels staff enter, randomises once for an editor (never for a viewer), then shows the allocation; the history says so", arguments: StoreKind.allCases)
    func randomiseFromThePage(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                try await fixture.trialStudy(design: TrialStoreTests.design)
                let token = try await fixture.participant(client, "ada", joining: "trial")
                let pseudonym = try #require(try await fixture.store.user(login: "ada")).pseudonym
                let editor = try await fixture.enrolledStaff("ed"), viewer = try await fixture.enrolledStaff("vi")
                try await fixture.role(.editor, editor, "trial")
                try await fixture.role(.viewer, viewer, "trial")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, editor)
                let page = ConsolePage.participant.uri(study: "trial", participant: pseudonym)
                let action = page + "/randomise"

                // No answer yet: the page says what is missing and offers no button.
                let waiting = try await browser.get(page)
                #expect(waiting.status == .ok && waiting.text.contains("id=\"randomisation\""))
                #expect(waiting.text.contains("loudness: there is no answer to daily (loudness) yet.") && !waiting.text.contains("id=\"randomise-form\""),
                        "\(waiting.text)")

                // Answered: the level read from it is shown, the entered factor is a choice.
                #expect(try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(loudness: 80)])).status == .ok)
                let ready = try await browser.get(page)
                #expect(ready.text.contains("<li>loudness: loud</li>") && ready.text.contains("id=\"randomise-form\"")
                        && ready.text.contains("<select id=\"level-hearing\" name=\"level-hearing\" required>"), "\(ready.text)")

                // Without the entered level: refused, nothing stored.
                let refused = try await browser.submit(page, to: action, [:])
                #expect(refused.status == .seeOther && refused.headers[.location]?.hasSuffix("?notice=randomiseRefused") == true)
                #expect(try await fixture.store.allocations(studyId: "trial").isEmpty)

                // A viewer reads the page without the form and may not post it.
                let viewing = PortalBrowser(client)
                try await fixture.signIn(viewing, viewer)
                let viewed = try await viewing.get(page)
                #expect(viewed.status == .ok && viewed.text.contains("<li>loudness: loud</li>") && !viewed.text.contains("id=\"randomise-form\""))
                #expect(try await viewing.submit(page, to: action, ["level-hearing": "aid"]).status == .forbidden)
                #expect(try await fixture.store.allocations(studyId: "trial").isEmpty)

                // The editor randomises: once, with the level chosen.
                let done = try await browser.submit(page, to: action, ["level-hearing": "aid"])
                #expect(done.status == .seeOther && done.headers[.location]?.hasSuffix("?notice=randomised") == true)
                let stored = try await fixture.store.allocations(studyId: "trial")
                #expect(stored.count == 1 && stored[0].allocation.stratum == "loudness=loud|hearing=aid" && stored[0].pseudonym == pseudonym)
                let shown = try await browser.get(page + "?notice=randomised")
                let arm = stored[0].allocation.arm == "sound" ? "Sound therapy (sound)" : "Counselling (counselling)"
                #expect(shown.text.contains("The participant is randomised.")
                        && shown.text.contains("Randomised as number 1 on ") && shown.text.contains("stratum loudness=loud|hearing=aid, arm \(arm).")
                        && !shown.text.contains("id=\"randomise-form\"") && shown.text.contains("randomised by the team"), "\(shown.text)")
                let again = try await browser.submit(page + "?notice=randomised", to: action, ["level-hearing": "none"])
                #expect(again.headers[.location]?.hasSuffix("?notice=randomiseRefused") == true)
                #expect(try await fixture.store.allocations(studyId: "trial").count == 1)
            }
        }
    }
}
