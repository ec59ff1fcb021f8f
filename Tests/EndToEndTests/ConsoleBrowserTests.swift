import Foundation
import Testing
import UNITITesting

/// The staff console in headless Chromium against a real `uniti-server` (Tests/Portal/
/// journey_console.py): enrolment with TOTP codes from pyotp, a study set up by its owner, a
/// participant's sheet exported with its codebook, prompt windows with the week's preview, a
/// safety alert mailed within a minute and marked seen, a viewer refused the export, another
/// study's owner refused every page, the audit trail.
@Suite("Staff console in a browser", .serialized, .timeLimit(.minutes(15)))
struct ConsoleBrowserTests {
    @Test("admin, owner, viewer and a stranger through the console; the audit trail holds each step")
    func consoleJourney() throws {
        let server = try StudyServer()
        for (name, admin) in [("ada", true), ("olga", false), ("vic", false), ("sam", false)] {
            let added = try server.coordinator(["staff", "add", name.capitalized, "--email", "\(name)@team.example.org",
                                                "--mail-spool", server.spool] + (admin ? ["--admin"] : []))
            #expect(added.status == 0, "\(added.err)")
        }
        #expect(try server.coordinator(["study", "create", "other", "--title", "Other"]).status == 0)
        #expect(try server.coordinator(["staff", "role", "other", "sam@team.example.org", "owner"]).status == 0)
        try PortalJourney.run("journey_console.py", server: server,
                              expecting: ["admin journey", "owner set-up journey", "export journey", "alert journey", "roles journey", "audit journey"])
        let audit = try server.coordinator(["audit", "--study", "journey", "--json"])
        #expect(audit.status == 0)
        #expect(audit.out.contains("\"action\" : \"export\""))
        #expect(audit.out.contains("\"action\" : \"alert.seen\"") && audit.out.contains("\"actor\" : \"server\""))
    }
}
