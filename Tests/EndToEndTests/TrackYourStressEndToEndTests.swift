import Foundation
import Testing
import UNITITesting

/// Track Your Stress with the real programs: a real `uniti-server` on loopback, a real gpsd fed
/// by gpsfake for the location, and the person's journey through study questionnaires
/// (Track Your Stress thesis FR10–FR19).
@Suite("Track Your Stress against a real server and gpsd", .serialized, .timeLimit(.minutes(15)))
struct TrackYourStressEndToEndTests {
    /// Ulm, where the apps were made.
    static let latitude = 48.4011, longitude = 9.9876, altitude = 480.0

    /// A one-time questionnaire and a daily one that reads the location.
    static func writeQuestionnaires(to folder: String) throws -> (oneTime: String, daily: String) {
        let oneTime = """
        {"id": "stress-about", "version": 1, "title": {"en": "About you", "de": "Über Sie"}, "kind": "oneTime",
         "items": [{"type": "slider", "label": "general", "text": "How stressed are you in general?", "required": true,
                    "min": 0, "max": 100, "step": 1}]}
        """
        let daily = """
        {"id": "stress-daily", "version": 1, "title": {"en": "Stress today", "de": "Stress heute"}, "kind": "repeating",
         "schedule": {"frequency": "daily", "timing": "between", "amount": 1}, "scheduleChangeable": true,
         "sensors": ["location"],
         "items": [{"type": "slider", "label": "stress", "text": "How stressed are you right now?", "required": true,
                    "min": 0, "max": 100, "step": 1},
                   {"type": "singleChoice", "label": "where", "text": "Where are you?", "required": true,
                    "options": [{"value": 0, "text": "at home"}, {"value": 1, "text": "at work"}]}]}
        """
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let paths = (folder + "/stress-about.json", folder + "/stress-daily.json")
        try oneTime.write(toFile: paths.0, atomically: true, encoding: .utf8)
        try daily.write(toFile: paths.1, atomically: true, encoding: .utf8)
        return paths
    }

    /// A participant with an account on `server`, logged in on their own data directory, and
    /// a member of the password study.
    struct Participant {
        let name: String
        let data = TemporaryDataDirectory()
        let server: StudyServer
        let program: String
        let environment: [String: String]

        func run(_ command: String, stdin: String = "") throws -> Program.Result {
            try Program.run(program, ["--data-dir", data.path, "--server", server.url, "-c", command], stdin: stdin,
                            environment: environment)
        }

        static func join(_ name: String, _ server: StudyServer, program: String = "uniti",
                         environment: [String: String] = [:]) throws -> Participant {
            let person = Participant(name: name, server: server, program: program, environment: environment)
            let register = try person.run("register", stdin: "\(name)\n\(name)@example.org\n\(name)@example.org\npassword-\(name)\npassword-\(name)\n")
            #expect(register.status == 0, "\(register.err)")
            let code = try #require(try server.mailedCode(to: "\(name)@example.org"))
            #expect(try person.run("activate \(code)").status == 0)
            #expect(try person.run("login \(name)", stdin: "password-\(name)\n").status == 0)
            let joined = try person.run("study join stress", stdin: "calm-down-42\n")
            #expect(joined.status == 0, "\(joined.err)")
            #expect(try person.run("sync").status == 0)
            return person
        }
    }

    static func studyServer(_ folder: String) throws -> StudyServer {
        let server = try StudyServer()
        let created = try server.coordinator(["study", "create", "stress", "--title", "Stress study", "--access", "password",
                                              "--password", "calm-down-42", "--modules", "tys", "--running"])
        #expect(created.status == 0, "\(created.err)")
        let files = try writeQuestionnaires(to: folder)
        for file in [files.oneTime, files.daily] {
            let imported = try server.coordinator(["questionnaire", "import", file, "--study", "stress", "--module", "tys"])
            #expect(imported.status == 0, "\(imported.err)")
        }
        return server
    }

    @Test("one-time first, then the daily one with the location from gpsd; deactivation reaches the client; sheets, export and the comparison",
          .enabled(if: Builds.isIntegrated))
    func journey() throws {
        let folder = TemporaryDataDirectory()
        let server = try Self.studyServer(folder.path)
        let gps = try GPSFake(latitude: Self.latitude, longitude: Self.longitude, altitude: Self.altitude)
        let ada = try Participant.join("ada", server, environment: ["UNITI_GPSD": gps.endpoint])

        let listed = try ada.run("tys questionnaires --json")
        let rows = try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [[String: Any]] ?? []
        #expect(rows.map { $0["id"] as? String } == ["stress-about", "stress-daily"])
        #expect(rows.map { $0["state"] as? String } == ["toDo", "afterOneTime"])

        #expect(try ada.run("tys sensors allow location").status == 0)
        let early = try ada.run("tys fill stress-daily", stdin: "50\n0\n")
        #expect(early.status == 1)
        #expect(early.err.contains("stress-about"))
        let first = try ada.run("tys fill", stdin: "40\nsave\n")
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("Next: Stress today"))
        let daily = try ada.run("tys fill", stdin: "70\n1\nsave\n")
        #expect(daily.status == 0, "\(daily.err)")
        #expect(daily.out.contains("Location noted: 48.40"), "\(daily.out)\(daily.err)")

        #expect(try ada.run("sync").status == 0)
        #expect(try ada.run("sync").status == 0)  // a second sync sends nothing again
        #expect(try server.sheets(of: "stress-about") == 1)
        #expect(try server.sheets(of: "stress-daily") == 1)

        // The sheet kept the location, near the log's coordinates, and the export carries it.
        let sheets = try ada.run("tys sheets --json")
        let views = try JSONSerialization.jsonObject(with: Data(sheets.out.utf8)) as? [[String: Any]] ?? []
        #expect(views.count == 2)
        #expect(views.allSatisfy { $0["upload"] as? String == "uploaded" })
        let location = try #require(views.first { $0["questionnaire"] as? String == "stress-daily" }?["location"] as? [String: Any])
        #expect(abs((location["latitude"] as? Double ?? 0) - Self.latitude) < 0.001)
        #expect(abs((location["longitude"] as? Double ?? 0) - Self.longitude) < 0.001)
        let shown = try ada.run("tys sheet \((views.first { $0["questionnaire"] as? String == "stress-daily" }?["id"] as? String ?? "").prefix(8))")
        #expect(shown.out.contains("at work"), "\(shown.out)")
        let exportFolder = folder.path + "/export"
        let export = try server.coordinator(["export", "--study", "stress", "--format", "json", "--out", exportFolder])
        #expect(export.status == 0, "\(export.err)")
        let exported = try FileManager.default.contentsOfDirectory(atPath: exportFolder)
            .map { try String(contentsOfFile: exportFolder + "/" + $0, encoding: .utf8) }.joined()
        #expect(exported.contains("stress-about") && exported.contains("stress-daily"))
        #expect(exported.contains("48.401"), "the export holds the location")

        // Four more participants answer the daily questionnaire: with five, the comparison shows.
        let beforeComparison = try ada.run("tys results --json")
        let lonely = try JSONSerialization.jsonObject(with: Data(beforeComparison.out.utf8)) as? [String: Any]
        #expect((lonely?["comparison"] as? [String: Any])?["available"] as? Bool == false)
        for (index, name) in ["bert", "cleo", "dana", "emil"].enumerated() {
            let person = try Participant.join(name, server)
            #expect(try person.run("tys fill", stdin: "30\nsave\n").status == 0)
            #expect(try person.run("tys fill", stdin: "\(10 + index * 10)\n0\nsave\n").status == 0)
            #expect(try person.run("sync").status == 0)
        }
        // All five daily sheets are on the server, each from a current member, before comparing.
        #expect(try server.sheets(of: "stress-daily") == 5)
        let compared = try ada.run("tys results")
        #expect(compared.status == 0)
        #expect(compared.out.contains("higher than those of 90 % of participants"), "\(compared.out)")
        let stored = try server.query("SELECT s.user_id, s.started_at, m.status FROM answer_sheets s LEFT JOIN memberships m ON m.user_id = s.user_id WHERE s.questionnaire_id = 'stress-daily'")
        #expect(compared.out.contains("5 participants"), "\(compared.out)\(stored)")

        // The coordinator deactivates the daily questionnaire: after a sync the client refuses it.
        #expect(try server.coordinator(["questionnaire", "deactivate", "stress-daily", "--study", "stress"]).status == 0)
        #expect(try ada.run("sync").status == 0)
        let refused = try ada.run("tys fill stress-daily", stdin: "50\n0\n")
        #expect(refused.status == 1)
        #expect(refused.err.contains("deactivated"))
        #expect(try ada.run("tys questionnaires").out.contains("deactivated"))
        #expect(try ada.run("tys sheets").out.contains("Stress today"))

        // A definition the server sends that does not validate (here: no items left) is refused
        // alone, in one line, and the version the device had stays in use.
        _ = try server.query("UPDATE questionnaires SET definition = json_set(definition, '$.items', json('[]')) WHERE id = 'stress-about'")
        let broken = try ada.run("sync")
        #expect(broken.status == 0, "\(broken.err)")
        let refusal = broken.err.split(separator: "\n").filter { $0.contains("stress-about") }
        #expect(refusal.count == 1, "\(broken.err)")
        #expect(refusal.first?.contains("stays in use") == true)
        let kept = try ada.run("tys questionnaires --json")
        let keptRows = try JSONSerialization.jsonObject(with: Data(kept.out.utf8)) as? [[String: Any]] ?? []
        #expect(keptRows.first { $0["id"] as? String == "stress-about" }?["state"] as? String == "done")
    }

    @Test("track-your-stress: the start screen (no guest), register, log in, join, answer and sync on its own",
          .enabled(if: !Builds.isIntegrated))
    func standalone() throws {
        let folder = TemporaryDataDirectory()
        let server = try Self.studyServer(folder.path)
        let data = TemporaryDataDirectory()
        let base = ["--data-dir", data.path, "--server", server.url]
        // Without an account the module's commands are refused in one line.
        let refused = try Program.run("track-your-stress", base + ["-c", "questionnaires"])
        #expect(refused.status == 1)
        #expect(refused.err.contains("needs an account"))

        // The start screen, answered like a person would: guest is not offered, 2 registers.
        let start = try Program.run("track-your-stress", base,
                                    stdin: "4\n2\nfrieda\nfrieda@example.org\nfrieda@example.org\npassword-frieda\npassword-frieda\n")
        #expect(start.out.contains("Welcome to track-your-stress"))
        #expect(!start.out.contains("guest"))
        #expect(start.err.contains("needs an account"))
        let code = try #require(try server.mailedCode(to: "frieda@example.org"))
        #expect(try Program.run("track-your-stress", base + ["-c", "activate \(code)"]).status == 0)
        let loggedIn = try Program.run("track-your-stress", base, stdin: "1\nfrieda\npassword-frieda\nstudy join stress\ncalm-down-42\nsync\nquestionnaires\n")
        #expect(loggedIn.out.contains("Logged in as frieda"), "\(loggedIn.out)\(loggedIn.err)")
        #expect(loggedIn.out.contains("stress-about"), "\(loggedIn.out)")
        #expect(try Program.run("track-your-stress", base + ["-c", "fill"], stdin: "20\nsave\n").status == 0)
        let daily = try Program.run("track-your-stress", base + ["-c", "fill"], stdin: "60\n0\nsave\n")
        #expect(daily.status == 0, "\(daily.err)")
        #expect(try Program.run("track-your-stress", base + ["-c", "sync"]).status == 0)
        #expect(try server.sheets(of: "stress-daily") == 1)
        let planner = try Program.run("track-your-stress", base + ["-c", "planner custom stress-daily 08:15"])
        #expect(planner.status == 0, "\(planner.err)")
        #expect(try Program.run("track-your-stress", base + ["-c", "planner show stress-daily"]).out.contains("08:15"))
    }
}
