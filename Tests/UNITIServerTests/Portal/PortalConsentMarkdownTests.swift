import Foundation
import Testing
import UNITIProtocol
@testable import UNITIServer

/// A study's consent is written in Markdown; the portal's studies page and the console's consent
/// page show it rendered (``MarkdownText``), with nothing a study team types able to run script.
@Suite("Consent texts rendered from Markdown", .timeLimit(.minutes(5)))
struct PortalConsentMarkdownTests {
    static let consent = """
        # Mood in daily life

        We keep **your answers** under a pseudonym; see [the study page](https://example.org/mood).

        - You may stop at any time.
        - Ask the team: [write](mailto:team@example.org).

        <script>alert("consent")</script> [click](javascript:alert(1)) <img src=x onerror=alert(2)>
        """

    /// What a page shows between `<div class="consent-text">` and the next `</div>`.
    static func consentHTML(in page: String) throws -> String {
        let start = try #require(page.range(of: #"<div class="consent-text">"#))
        let end = try #require(page[start.upperBound...].range(of: "</div>"))
        return String(page[start.upperBound..<end.lowerBound])
    }

    static func expectRenderedAndInert(_ html: String, heading: String) {
        #expect(html.contains("<\(heading)>Mood in daily life</\(heading)>"), "\(html)")
        #expect(html.contains("<strong>your answers</strong>"))
        #expect(html.contains(#"<li>You may stop at any time.</li>"#))
        #expect(html.contains(#"<a href="https://example.org/mood">the study page</a>"#))
        #expect(html.contains(#"<a href="mailto:team@example.org">write</a>"#))
        #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("javascript:alert(1)\""))
        #expect(html.contains("&lt;script&gt;alert(&quot;consent&quot;)&lt;/script&gt;"))
        #expect(!html.contains("# Mood"), "the Markdown shows raw")
    }

    @Test("the studies page shows a study's consent as headings, lists, emphasis and safe links under the study's heading; raw HTML is text")
    func studiesPageRendersConsent() async throws {
        let server = try TestServer()
        try await server.store.createStudy(StudyRecord(id: "mood", title: LocalizedText(["en": "Mood"]),
                                                       consent: LocalizedText(["en": Self.consent]), access: .public, modules: [.tyt]),
                                           now: server.clock.now())
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let page = try await browser.get("/studies")
            Self.expectRenderedAndInert(try Self.consentHTML(in: page.text), heading: "h3")
        }
    }

    @Test("the console lists each consent version rendered the way participants see it")
    func consolePageRendersConsent() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                .create("mood", StudySettings(title: LocalizedText(["en": "Mood"]), access: .public))
            let owner = try await fixture.enrolledStaff("olga")
            try await fixture.role(.owner, owner, "mood")
            let browser = PortalBrowser(client)
            try await fixture.signIn(browser, owner)
            let base = "/console/studies/mood/consent"
            let published = try await browser.submit(base, to: base, ["consent-en": Self.consent])
            #expect(published.status == .seeOther)
            let page = try await browser.get(base)
            Self.expectRenderedAndInert(try Self.consentHTML(in: page.text), heading: "h4")
            // The form keeps the Markdown as written, to edit.
            #expect(page.text.contains("# Mood in daily life\n"))
        }
    }

    @Test("a study password field offers no saved login and passes axe-core 3.1.1's autocomplete rule (new-password, not off)")
    func studyPasswordFieldsAutocomplete() async throws {
        let server = try TestServer()
        try await server.createStudy("secret", access: .password, password: "let me in")
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let page = try await browser.get("/studies")
            let regex = try NSRegularExpression(pattern: #"<input [^>]*type="password"[^>]*>"#)
            let fields = regex.matches(in: page.text, range: NSRange(page.text.startIndex..., in: page.text))
                .compactMap { Range($0.range, in: page.text).map { String(page.text[$0]) } }
            #expect(fields.count == 2, "the password study's field and the join-by-id one: \(fields)")
            for field in fields {
                // axe-core 3.1.1 takes only these tokens as fit for a password field ("off" fits text fields only).
                #expect(field.contains(#"autocomplete="new-password""#), "\(field)")
            }
        }
    }
}
