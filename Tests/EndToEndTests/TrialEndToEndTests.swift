import Foundation
import UNITITesting
import Testing

/// Issue 48 with the real `uniti` and a real `uniti-server` on loopback: a study set up as a
/// randomised trial on the command line, a participant who joins with `uniti`, is randomised by
/// `uniti-server randomise`, then offered their arm's modules only, reminded of a due visit at
/// each sync until they answer it; the CONSORT counts equal the database's, and the blinded ones
/// name no arm.
@Suite("A randomised trial against a real server", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct TrialEndToEndTests {
    static let design = #"""
        {"arms": [{"id": "sound", "label": "Sound therapy", "ratio": 1, "modules": [{"id": "tyt"}, {"id": "son", "fromDay": 0, "toDay": 84}],
                   "notice": {"en": "Listen to Shades of Noise every day.", "de": "Hören Sie täglich Shades of Noise."}},
                  {"id": "diary", "label": "Diary only", "ratio": 1, "modules": [{"id": "tyt"}],
                   "notice": {"en": "Keep answering your questions.", "de": "Beantworten Sie weiter Ihre Fragen."}}],
         "factors": [], "method": "blocks", "blockMultiples": [1],
         "visits": [{"id": "baseline", "label": "Baseline", "title": {"en": "Baseline", "de": "Eingangsvisite"}, "day": 0, "window": 3,
                     "questionnaires": ["tyt-momentary"]},
                    {"id": "week12", "label": "Week 12", "day": 84, "window": 7, "questionnaires": ["tyt-momentary"]}],
         "primaryVisit": "week12"}
        """#

    @Test("randomised on the command line, the participant's uniti offers the arm's modules and no others after a sync, reminds of the due visit until it is answered, and CONSORT counts what the database holds")
    func trialWithTheRealPrograms() throws {
        let server = try StudyServer()
        try server.createStudy("trial", modules: "tyt,son", questionnaires: ["tyt-momentary"])
        let designFile = server.directory + "/design.json"
        try Data(Self.design.utf8).write(to: URL(fileURLWithPath: designFile))
        let setUp = try server.coordinator(["randomisation", "setup", "--study", "trial", "--design", designFile])
        #expect(setUp.status == 0, "\(setUp.err)")
        let site = try server.coordinator(["sites", "add", "--study", "trial", "--site", "ulm", "--name", "Universitätsklinikum Ulm",
                                           "--country", "DE", "--language", "de"])
        #expect(site.status == 0, "\(site.err)")

        // The participant joins with uniti: before randomisation both study modules are theirs.
        let data = TemporaryDataDirectory()
        let base = ["--data-dir", data.path, "--server", server.url]
        let register = try Program.run("uniti", base + ["-c", "register"], stdin: "ida\nida@example.org\nida@example.org\npassword-ida\npassword-ida\n")
        #expect(register.status == 0, "\(register.err)")
        let code = try #require(try server.mailedCode(to: "ida@example.org"))
        #expect(try Program.run("uniti", base + ["-c", "activate \(code)"]).status == 0)
        #expect(try Program.run("uniti", base + ["-c", "login ida"], stdin: "password-ida\n").status == 0)
        let unknownSite = try Program.run("uniti", base + ["-c", "study join trial --site nowhere"], stdin: "y\n")
        #expect((unknownSite.out + unknownSite.err).contains("no site with this code"), "\(unknownSite.out) \(unknownSite.err)")
        #expect(try server.query("SELECT COUNT(*) FROM memberships WHERE study_id = 'trial'") == ["0"], "an unknown site joins nothing")
        #expect(try Program.run("uniti", base + ["-c", "study join trial --site ulm"], stdin: "y\n").status == 0)
        #expect(try server.query("SELECT site_id FROM member_sites WHERE study_id = 'trial'") == ["ulm"], "joined at the site of the code")
        let before = try Program.run("uniti", base + ["-c", "modules"])
        #expect(before.status == 0 && Self.enabled(before.out).isSuperset(of: ["tyt", "son"]), "\(before.out)")

        // Randomised by the site's staff on the command line.
        let pseudonym = try #require(try server.query("SELECT pseudonym FROM users WHERE username = 'ida'").first)
        let randomised = try server.coordinator(["randomise", "--study", "trial", "--participant", pseudonym])
        #expect(randomised.status == 0 && randomised.out.contains("allocation 1"), "\(randomised.err)")
        let arm = try #require(try server.query("SELECT arm FROM allocations WHERE study_id = 'trial'").first)

        // The next sync: the arm's modules only, its notice, and the due baseline visit reminded.
        let sync = try Program.run("uniti", base + ["-c", "sync"])
        #expect(sync.status == 0, "\(sync.err)")
        #expect(sync.out.contains("Study visit “Baseline” of trial is due until"), "\(sync.out)")
        let after = try Program.run("uniti", base + ["-c", "modules"])
        let enabled = Self.enabled(after.out)
        #expect(arm == "sound" ? enabled.isSuperset(of: ["tyt", "son"]) : (enabled.contains("tyt") && !enabled.contains("son")), "\(arm): \(after.out)")
        let shown = try Program.run("uniti", base + ["-c", "study info trial"])
        #expect(shown.out.contains(arm == "sound" ? "Listen to Shades of Noise every day." : "Keep answering your questions."), "\(shown.out)")
        #expect(shown.out.contains("Your study visits:") && shown.out.contains("due now") && shown.out.contains("upcoming"), "\(shown.out)")
        for secret in ["Sound therapy", "Diary only", "\(arm) "] { #expect(!shown.out.contains(secret), "\(secret): \(shown.out)") }

        // Answered: the visit is done and no longer reminded.
        #expect(try Program.run("uniti", base + ["-c", "tyt fill"], stdin: ConductEndToEndTests.answers).status == 0)
        let again = try Program.run("uniti", base + ["-c", "sync"])
        #expect(again.status == 0 && !again.out.contains("Study visit"), "\(again.out)")
        #expect(try Program.run("uniti", base + ["-c", "study info trial"]).out.contains("done"))

        // CONSORT: the counts are the database's; blinded, no arm is named.
        let consort = try server.coordinator(["consort", "--study", "trial", "--format", "json"])
        #expect(consort.status == 0, "\(consort.err)")
        let flow = try #require(try JSONSerialization.jsonObject(with: Data(consort.out.utf8)) as? [String: Any])
        let arms = try #require(flow["arms"] as? [[String: Any]])
        let tallies = try server.query("SELECT * FROM member_tallies"), allocated = try server.query("SELECT allocated_at FROM allocations")
        #expect(flow["assessed"] as? Int == Int(try server.query("SELECT COUNT(*) FROM memberships WHERE study_id = 'trial'").first ?? ""))
        #expect(flow["randomised"] as? Int == Int(try server.query("SELECT COUNT(*) FROM allocations WHERE study_id = 'trial'").first ?? ""))
        #expect(arms.first { $0["arm"] as? String == arm }?["allocated"] as? Int == 1 && arms.first { $0["arm"] as? String == arm }?["received"] as? Int == 1,
                "\(consort.out) \(tallies) \(allocated)")
        let blinded = try server.coordinator(["consort", "--study", "trial", "--format", "json", "--blinded"])
        for secret in ["sound", "diary", "Sound therapy", "Diary only"] { #expect(!blinded.out.contains(secret), "\(secret): \(blinded.out)") }
        let svg = try server.coordinator(["consort", "--study", "trial", "--language", "de"])
        #expect(svg.out.hasPrefix("<svg") && svg.out.contains("Randomisiert (n = 1)"), "\(svg.out.prefix(400))")

        // The analysts' export: the site, and the arm's code in place of the arm.
        let out = server.directory + "/blinded-export"
        let exported = try server.coordinator(["export", "--study", "trial", "--out", out, "--blinded"])
        #expect(exported.status == 0, "\(exported.err)")
        let rows = try String(contentsOfFile: out + "/trial-answers.csv", encoding: .utf8).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count > 1 && rows[0].hasSuffix(",site,arm"), "\(rows)")
        for row in rows.dropFirst() {
            #expect(row.hasSuffix(",ulm,A") || row.hasSuffix(",ulm,B"), "\(row)")
            for secret in ["sound", "diary", "Sound therapy", "Diary only"] { #expect(!row.contains(secret), "\(secret): \(row)") }
        }
    }

    static let screeningQuestionnaire = #"""
        {"id": "screen", "version": 1, "title": {"en": "Screening", "de": "Screening"}, "kind": "oneTime",
         "items": [
           {"type": "slider", "label": "age", "text": {"en": "How old are you?"}, "min": 0, "max": 120, "step": 1},
           {"type": "yesNo", "label": "pulsatile", "text": {"en": "Does your tinnitus beat with your pulse?"}},
           {"type": "scale", "label": "d1", "text": {"en": "How much does it distress you?"}, "min": 0, "max": 4},
           {"type": "scale", "label": "d2", "text": {"en": "How much does it disturb your sleep?"}, "min": 0, "max": 4}
         ],
         "scoring": {"scores": [{"id": "total", "items": ["d1", "d2"]}]}}
        """#

    static let screening = #"""
        {"questionnaire": "screen",
         "rules": [{"id": "age", "item": "age", "min": 18, "max": 80}, {"id": "no-pulsatile", "item": "pulsatile", "in": [1]},
                   {"id": "distress", "score": "total", "min": 2}],
         "ineligibleMessage": {"en": "Thank you. **This study** does not suit you; your doctor can advise you.",
                               "de": "Danke. **Diese Studie** passt nicht zu Ihnen; Ihre Ärztin oder Ihr Arzt berät Sie."},
         "keepAnswersQuestion": {"en": "May the study team keep your answers if you cannot take part?",
                                 "de": "Darf das Studienteam Ihre Antworten behalten, falls Sie nicht teilnehmen können?"}}
        """#

    @Test("a study that screens: uniti asks its questions before joining; someone not eligible reads the study's words and joins nothing, someone eligible joins with the answers as their first sheet; the log and the CONSORT flow count both")
    func screeningInTheShell() throws {
        let server = try StudyServer()
        try server.createStudy("screened", modules: "tyt", questionnaires: [])
        let questionnaire = server.directory + "/screen.json", screening = server.directory + "/screening.json"
        try Data(Self.screeningQuestionnaire.utf8).write(to: URL(fileURLWithPath: questionnaire))
        #expect(try server.coordinator(["questionnaire", "import", questionnaire, "--study", "screened", "--module", "tyt"]).status == 0)
        let broken = server.directory + "/broken.json"
        try Data(#"{"questionnaire": "screen", "rules": [{"id": "x", "item": "height", "min": 1}], "ineligibleMessage": {"en": "No."}}"#.utf8)
            .write(to: URL(fileURLWithPath: broken))
        let refused = try server.coordinator(["screening", "set", "--study", "screened", "--file", broken])
        #expect(refused.status != 0 && refused.err.contains("screen has no item height"), "\(refused.err)")
        try Data(Self.screening.utf8).write(to: URL(fileURLWithPath: screening))
        let set = try server.coordinator(["screening", "set", "--study", "screened", "--file", screening])
        #expect(set.status == 0 && set.out.contains("joining asks screen first; 3 rule(s)"), "\(set.out) \(set.err)")
        #expect(try server.coordinator(["randomisation", "setup", "--study", "screened", "--design", try Self.designFile(server)]).status == 0)

        // Not eligible (pulsatile), the answers kept by their leave: told in the study's words, no member.
        let ivoData = TemporaryDataDirectory(), idaData = TemporaryDataDirectory()
        let ivo = try AccountsAndStudiesTests.loggedIn("ivo", on: server, data: ivoData)
        let told = try Program.run("uniti", ivo + ["-c", "study join screened"], stdin: "44\nyes\n3\n3\ny\n")
        #expect(told.status == 0, "\(told.out) \(told.err)")
        #expect(told.out.contains("the study asks a few questions") && told.out.contains("How old are you?"), "\(told.out)")
        #expect(told.out.contains("is not the right study for you") && told.out.contains("This study does not suit you"), "\(told.out)")
        #expect(try server.query("SELECT COUNT(*) FROM memberships WHERE study_id = 'screened'") == ["0"])
        #expect(try server.query("SELECT eligible, failed, user_id IS NOT NULL, answers IS NOT NULL FROM screenings") == ["0|no-pulsatile|1|1"])

        // Eligible: joins, and the screening is their first sheet of the study.
        let ida = try AccountsAndStudiesTests.loggedIn("ida", on: server, data: idaData)
        let joined = try Program.run("uniti", ida + ["-c", "study join screened"], stdin: "52\nno\n2\n1\nn\n")
        #expect(joined.status == 0 && joined.out.contains("You take part in screened"), "\(joined.out) \(joined.err)")
        #expect(try server.query("SELECT questionnaire_id FROM answer_sheets s JOIN users u ON u.id = s.user_id WHERE u.username = 'ida'") == ["screen"])
        #expect(try server.query("SELECT eligible, answers IS NULL FROM screenings ORDER BY id") == ["0|0", "1|1"])

        let log = try server.coordinator(["screening", "log", "--study", "screened"])
        #expect(log.out.contains("2 screened, 1 eligible, 1 not eligible (answers kept for 1)") && log.out.contains("no-pulsatile"), "\(log.out)")
        let csv = try server.coordinator(["screening", "log", "--study", "screened", "--csv"])
        #expect(csv.out.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 3 && !csv.out.contains("ivo"), "\(csv.out)")
        let consort = try server.coordinator(["consort", "--study", "screened", "--format", "json"])
        let flow = try #require(try JSONSerialization.jsonObject(with: Data(consort.out.utf8)) as? [String: Any])
        let excluded = try #require(flow["excluded"] as? [String: Any])
        #expect(flow["assessed"] as? Int == 2 && excluded["ineligible"] as? Int == 1, "\(consort.out)")
        withExtendedLifetime((ivoData, idaData)) {}
    }

    /// ``design`` in the server's directory, for `randomisation setup`.
    static func designFile(_ server: StudyServer) throws -> String {
        let file = server.directory + "/design-\(UUID().uuidString).json"
        try Data(#"{"arms": [{"id": "a", "label": "A", "ratio": 1}, {"id": "b", "label": "B", "ratio": 1}], "factors": [], "method": "blocks"}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The module ids `modules` lists as enabled (a line per module: id, then whether it is on).
    static func enabled(_ listing: String) -> Set<String> {
        Set(listing.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let id = words.first, ["tyt", "tys", "tyh", "tn", "son"].contains(id), words.contains("enabled") else { return nil }
            return id
        })
    }
}
