import Foundation
import Testing
import UNITITesting

/// The person's own portal pages in a real browser (Tests/Portal/journey_account.py): join a
/// password study and a by-request study, leave, change the password while a second browser is
/// logged in, download all data, deactivate, and get the account back by logging in (the
/// reactivation form). Studies come from the coordinator commands; one has a consent in Markdown
/// that tries to run script, which the page shows rendered (headings, lists, emphasis, links) and inert.
@Suite("Portal account pages in a browser", .serialized, .timeLimit(.minutes(15)))
struct PortalAccountBrowserTests {
    @Test("studies, password change, data download, deactivation and reactivation through headless Chromium")
    func accountJourney() throws {
        let server = try StudyServer()
        for (id, access, password) in [("secret", "password", "let me in"), ("asking", "byRequest", "")] {
            var arguments = ["study", "create", id, "--title", id, "--access", access, "--modules", "tyt", "--running"]
            if !password.isEmpty { arguments += ["--password", password] }
            let created = try server.coordinator(arguments)
            #expect(created.status == 0, "\(created.err)")
        }
        // A public study whose consent is Markdown with every way a text might smuggle script
        // into the page: the journey reads it rendered, and inert.
        let consent = FileManager.default.temporaryDirectory.appendingPathComponent("terms-\(UUID().uuidString).en.md")
        try Self.markdownConsent.write(to: consent, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: consent) }
        let terms = try server.coordinator(["study", "create", "terms", "--title", "Terms", "--access", "public", "--modules", "tyt",
                                            "--running", "--consent", consent.path])
        #expect(terms.status == 0, "\(terms.err)")
        try PortalJourney.run("journey_account.py", server: server,
                              expecting: ["consent journey", "studies journey", "password journey", "download journey", "deactivate journey"])
    }

    static let markdownConsent = """
        # Taking part in Terms

        We keep **your answers** for *the study*; read [our page](https://example.org/terms) or [write to us](mailto:team@example.org).

        - You may stop at any time.
        - Your answers stay under a pseudonym.

        <script>window.consentRan = "script"</script>

        <img src="x" onerror="window.consentRan = 'img'">

        A [harmless-looking link](javascript:window.consentRan='link') and [another](&#106;avascript:alert(1)).

        &lt;b&gt;not bold&lt;/b&gt; and <b onclick="window.consentRan = 'b'">not bold either</b>.
        """
}
