import Foundation
import Testing
import UNITITesting

/// Study conduct on the portal in a real browser (Tests/Portal/journey_conduct.py): consent
/// shown and required before joining, a new version asked for again, leaving with deletion, and
/// deleting the account; then the store is read to see that nothing of the person is left.
@Suite("Portal consent and deletion in a browser", .serialized, .timeLimit(.minutes(15)))
struct PortalConductBrowserTests {
    @Test("consent versions, leaving with deletion and account deletion through headless Chromium")
    func conductJourney() throws {
        let server = try StudyServer()
        let folder = TemporaryDataDirectory()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let first = folder.path + "/consent.en.md", second = folder.path + "/consent-2.en.md"
        try "Version one: your answers are kept for the study and read only under a pseudonym.".write(toFile: first, atomically: true, encoding: .utf8)
        try "Version two: your answers are also kept for a follow-up study of two years.".write(toFile: second, atomically: true, encoding: .utf8)
        let created = try server.coordinator(["study", "create", "consented", "--title", "Consented", "--access", "public", "--modules", "tyt",
                                              "--running", "--participants-may-leave", "--consent", first])
        #expect(created.status == 0, "\(created.err)")
        try PortalJourney.run("journey_conduct.py", server: server,
                              arguments: [Program.path("uniti-server"), server.database, second],
                              expecting: ["consent journey", "leave journey", "delete journey"])
        #expect(try server.query("SELECT COUNT(*) FROM users WHERE username = 'cora'") == ["0"])
        #expect(try server.query("SELECT COUNT(*) FROM consent_agreements") == ["0"])
        #expect(try server.query("SELECT COUNT(*) FROM memberships") == ["0"])
        #expect(try server.query("SELECT MAX(version) FROM consent_versions WHERE study_id = 'consented'") == ["2"])
    }

    @Test("a study's screening before joining through headless Chromium: someone not eligible is told so and kept as a count; someone eligible, by a site's link, joins there after a missing answer is named")
    func screeningJourney() throws {
        let server = try StudyServer()
        let folder = TemporaryDataDirectory()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let consent = folder.path + "/consent.en.md", questionnaire = folder.path + "/screen.json", screening = folder.path + "/screening.json"
        try "Your answers are kept for the study and read only under a pseudonym.".write(toFile: consent, atomically: true, encoding: .utf8)
        try TrialEndToEndTests.screeningQuestionnaire.write(toFile: questionnaire, atomically: true, encoding: .utf8)
        try TrialEndToEndTests.screening.write(toFile: screening, atomically: true, encoding: .utf8)
        for command in [["study", "create", "screened", "--title", "Screened", "--access", "public", "--modules", "tyt", "--running", "--consent", consent],
                        ["sites", "add", "--study", "screened", "--site", "ulm", "--name", "Universitätsklinikum Ulm", "--country", "DE", "--language", "de"],
                        ["questionnaire", "import", questionnaire, "--study", "screened", "--module", "tyt"],
                        ["screening", "set", "--study", "screened", "--file", screening]] {
            let done = try server.coordinator(command)
            #expect(done.status == 0, "\(command): \(done.err)")
        }
        try PortalJourney.run("journey_screening.py", server: server, expecting: ["ineligible journey", "eligible journey"])
        #expect(try server.query("SELECT eligible, failed, site_id, user_id IS NULL, answers IS NULL FROM screenings ORDER BY id")
                == ["0|no-pulsatile||1|1", "1||ulm|0|1"])
        #expect(try server.query("SELECT u.username, s.site_id FROM member_sites s JOIN users u ON u.id = s.user_id") == ["emil|ulm"])
        #expect(try server.query("SELECT COUNT(*) FROM answer_sheets WHERE questionnaire_id = 'screen'") == ["1"])
    }
}
