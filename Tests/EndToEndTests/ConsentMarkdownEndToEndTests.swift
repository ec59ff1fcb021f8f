import Foundation
import Testing
import UNITITesting

/// A study's consent is Markdown; the real `uniti` shows it as plain text wherever it shows it
/// (`study info`, `study join`, `study consent`): headings as lines, bullets, no emphasis
/// markers, links as `text (address)`, raw HTML as the text it is.
@Suite("Consent as plain text in the shell", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(10)))
struct ConsentMarkdownEndToEndTests {
    static let consent = """
        # Mood in daily life

        We keep **your answers** under a pseudonym; see [the study page](https://example.org/mood).

        - You may stop at any time.
        - Ask the team: [write](mailto:team@example.org).

        <b>Plain</b> text.
        """

    static let plain = """
        Mood in daily life

        We keep your answers under a pseudonym; see the study page (https://example.org/mood).

        • You may stop at any time.
        • Ask the team: write (mailto:team@example.org).

        <b>Plain</b> text.
        """

    @Test("study info, study join and study consent show the Markdown consent as plain text")
    func consentAsPlainText() throws {
        let server = try StudyServer()
        try server.createStudy("mood", modules: "tyt", questionnaires: ["tyt-momentary"])
        let file = server.directory + "/consent.en.md"
        try Data(Self.consent.utf8).write(to: URL(fileURLWithPath: file))
        let updated = try server.coordinator(["study", "update", "mood", "--consent", file])
        #expect(updated.status == 0, "\(updated.err)")

        let data = TemporaryDataDirectory()
        let base = ["--data-dir", data.path, "--server", server.url]
        let register = try Program.run("uniti", base + ["-c", "register"],
                                       stdin: "mia\nmia@example.org\nmia@example.org\npassword-mia\npassword-mia\n")
        #expect(register.status == 0, "\(register.err)")
        let code = try #require(try server.mailedCode(to: "mia@example.org"))
        #expect(try Program.run("uniti", base + ["-c", "activate \(code)"]).status == 0)
        #expect(try Program.run("uniti", base + ["-c", "login mia"], stdin: "password-mia\n").status == 0)

        let info = try Program.run("uniti", base + ["-c", "study info mood"])
        #expect(info.status == 0, "\(info.err)")
        #expect(info.out.contains(Self.plain), "\(info.out)")
        for raw in ["# Mood", "**", "](", "- You"] { #expect(!info.out.contains(raw), "\(raw) shows raw: \(info.out)") }

        let join = try Program.run("uniti", base + ["-c", "study join mood"], stdin: "y\n")
        #expect(join.status == 0, "\(join.err)")
        #expect(join.out.contains(Self.plain), "\(join.out)")

        let agreed = try Program.run("uniti", base + ["-c", "study consent mood"])
        #expect(agreed.status == 0, "\(agreed.err)")
        #expect(agreed.out.contains(Self.plain), "\(agreed.out)")
    }
}
