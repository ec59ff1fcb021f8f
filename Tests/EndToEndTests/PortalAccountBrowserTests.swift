import Foundation
import Testing
import UNITITesting

/// The person's own portal pages in a real browser (Tests/Portal/journey_account.py): join a
/// password study and a by-request study, leave, change the password while a second browser is
/// logged in, download all data, deactivate, and get the account back by logging in (the
/// reactivation form). Studies come from the coordinator commands.
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
        try PortalJourney.run("journey_account.py", server: server,
                              expecting: ["studies journey", "password journey", "download journey", "deactivate journey"])
    }
}
