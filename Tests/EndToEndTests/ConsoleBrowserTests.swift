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

    /// A one-page questionnaire in the five languages: a slider, a free text, a yes/no.
    static let glossaDaily = #"""
        {"id": "glossa-daily", "version": 1, "kind": "oneTime", "presentation": "allOnOnePage",
         "title": {"en": "Today", "de": "Heute", "es": "Hoy", "el": "Σήμερα", "nl": "Vandaag"},
         "items": [
           {"type": "slider", "label": "loudness", "min": 0, "max": 100, "step": 1,
            "text": {"en": "How loud is it?", "de": "Wie laut ist es?", "es": "¿Qué intensidad tiene?", "el": "Πόσο δυνατό είναι;", "nl": "Hoe luid is het?"}},
           {"type": "freeText", "label": "words", "multiline": false, "maxLength": 200,
            "text": {"en": "In your own words", "de": "In Ihren Worten", "es": "Con sus palabras", "el": "Με δικά σας λόγια", "nl": "In uw eigen woorden"}},
           {"type": "yesNo", "label": "slept", "text": {"en": "Did you sleep well?", "de": "Haben Sie gut geschlafen?",
            "es": "¿Ha dormido bien?", "el": "Κοιμηθήκατε καλά;", "nl": "Hebt u goed geslapen?"}}
         ]}
        """#

    @Test("the trial's languages in Chromium: a Greek and a Spanish participant register and answer in their language, typing its letters; a Dutch staff member reads the Greek participant's page in Dutch; every page's lang set, axe finds nothing")
    func languageJourneys() throws {
        let server = try StudyServer()
        let questionnaire = server.directory + "/glossa-daily.json"
        try Data(Self.glossaDaily.utf8).write(to: URL(fileURLWithPath: questionnaire))
        for command in [["study", "create", "glossa", "--title", #"{"en": "Glossa", "el": "Γλώσσα", "es": "Lengua", "nl": "Taal", "de": "Sprache"}"#,
                         "--access", "public", "--modules", "tys", "--running"],
                        ["questionnaire", "import", questionnaire, "--study", "glossa", "--module", "tys"],
                        ["staff", "add", "Dirk", "--email", "dirk@team.example.org", "--mail-spool", server.spool],
                        ["staff", "role", "glossa", "dirk@team.example.org", "viewer"]] {
            let result = try server.coordinator(command)
            #expect(result.status == 0, "\(command): \(result.err)")
        }
        try PortalJourney.run("journey_languages.py", server: server, expecting: ["el portal journey", "es portal journey", "nl console journey"])
        // What was typed is stored as typed, and the sheet names the language it was answered in.
        let stored = try server.query("""
            SELECT json_extract(sheet, '$.language'), json_extract(sheet, '$.answers.words.value') FROM answer_sheets ORDER BY id
            """)
        #expect(stored == ["el|Βουίζει δυνατά σήμερα, σαν τζιτζίκι στο αυτί", "es|Zumba fuerte hoy; señal en el oído, ¿mañana?"], "\(stored)")
        let languages = try server.query("SELECT username, language FROM users ORDER BY username")
        #expect(languages == ["elena|es", "eleni|el"], "an account registered in the portal takes the page's language: \(languages)")
    }

    @Test("a site's editor in the console: their site's join requests only, with the screening answers; one approved and randomised with the button by site, the other site's and the study-wide pages out of reach")
    func siteJourney() throws {
        let server = try StudyServer()
        let added = try server.coordinator(["staff", "add", "Edda", "--email", "edda@team.example.org", "--mail-spool", server.spool])
        #expect(added.status == 0, "\(added.err)")
        try server.createStudy("multi", modules: "tyt", questionnaires: [], access: "byRequest")
        let consent = server.directory + "/consent.en.md", screen = server.directory + "/multi-screen.json", screening = server.directory + "/screening.json"
        try "You take part under a pseudonym; the clinic decides whether you can join.".write(toFile: consent, atomically: true, encoding: .utf8)
        try Data(#"""
            {"id": "multi-screen", "version": 1, "title": {"en": "Before you join"}, "kind": "oneTime",
             "items": [{"type": "slider", "label": "age", "text": {"en": "How old are you?"}, "min": 0, "max": 120, "step": 1}]}
            """#.utf8).write(to: URL(fileURLWithPath: screen))
        try Data(#"""
            {"questionnaire": "multi-screen", "rules": [{"id": "age", "item": "age", "min": 18, "max": 80}],
             "ineligibleMessage": {"en": "This study takes adults up to 80."}}
            """#.utf8).write(to: URL(fileURLWithPath: screening))
        let questionnaire = server.directory + "/multi-daily.json"
        try Data(#"""
            {"id": "multi-daily", "version": 1, "title": {"en": "Daily"}, "kind": "oneTime",
             "items": [{"type": "slider", "label": "loudness", "text": {"en": "How loud?"}, "min": 0, "max": 100, "step": 1}]}
            """#.utf8).write(to: URL(fileURLWithPath: questionnaire))
        let design = server.directory + "/design.json"
        try Data(#"""
            {"arms": [{"id": "a", "label": "Arm A", "ratio": 1}, {"id": "b", "label": "Arm B", "ratio": 1}],
             "factors": [{"id": "centre", "levels": ["ulm", "athens"], "site": true}], "method": "blocks"}
            """#.utf8).write(to: URL(fileURLWithPath: design))
        for command in [["questionnaire", "import", questionnaire, "--study", "multi", "--module", "tyt"],
                        ["questionnaire", "import", screen, "--study", "multi", "--module", "tyt"],
                        ["study", "update", "multi", "--consent", consent],
                        ["screening", "set", "--study", "multi", "--file", screening],
                        ["sites", "add", "--study", "multi", "--site", "ulm", "--name", "Universitätsklinikum Ulm", "--country", "DE", "--language", "de"],
                        ["sites", "add", "--study", "multi", "--site", "athens", "--name", "Athens", "--country", "GR", "--language", "el"],
                        ["randomisation", "setup", "--study", "multi", "--design", design],
                        ["staff", "role", "multi", "edda@team.example.org", "editor"],
                        ["sites", "hold", "--study", "multi", "--email", "edda@team.example.org", "--site", "ulm"]] {
            let result = try server.coordinator(command)
            #expect(result.status == 0, "\(command): \(result.err)")
        }
        try PortalJourney.run("journey_sites.py", server: server, expecting: ["site journey"])
        #expect(try server.query("SELECT stratum FROM allocations WHERE study_id = 'multi'") == ["centre=ulm"])
        #expect(try server.query("SELECT u.username, m.status FROM memberships m JOIN users u ON u.id = m.user_id ORDER BY u.username")
                == ["athina|pending", "ulla|member"])
        #expect(try server.query("SELECT COUNT(*) FROM answer_sheets WHERE questionnaire_id = 'multi-screen'") == ["1"],
                "the approved member's screening is their first sheet; the waiting one's stays in the log")
        #expect(try server.query("SELECT action FROM audit_log WHERE study_id = 'multi' AND action = 'trial.randomise'").count == 1)
    }
}

