import Foundation
import UNITITesting
import Testing

/// Shades Of Noise through the real program of the build under test (`uniti` with `son ...`,
/// or the standalone `shades-of-noise`) and a real `uniti-server` on loopback.
@Suite("Shades Of Noise end to end", .serialized, .timeLimit(.minutes(15)))
struct ShadesOfNoiseEndToEndTests {
    /// The program that carries the module in this build, and how its commands are typed.
    static let program = Builds.isIntegrated ? "uniti" : "shades-of-noise"
    static func command(_ text: String) -> String { Builds.isIntegrated ? "son " + text : text }

    /// A server with one activated account, `name`, and a client data directory per device.
    struct Setup {
        let server: StudyServer
        let name: String
        var password: String { "password-\(name)" }

        init(name: String) throws {
            self.name = name
            server = try StudyServer()
            let scratch = TemporaryDataDirectory()
            let register = try Program.run(ShadesOfNoiseEndToEndTests.program, ["--data-dir", scratch.path, "--server", server.url, "-c", "register"],
                                           stdin: "\(name)\n\(name)@example.org\n\(name)@example.org\n\(password)\n\(password)\n")
            #expect(register.status == 0, "\(register.err)")
            let code = try #require(try server.mailedCode(to: "\(name)@example.org"))
            let activate = try Program.run(ShadesOfNoiseEndToEndTests.program, ["--data-dir", scratch.path, "--server", server.url, "-c", "activate \(code)"])
            #expect(activate.status == 0, "\(activate.err)")
        }

        func run(_ device: TemporaryDataDirectory, _ line: String, stdin: String = "") throws -> Program.Result {
            try Program.run(ShadesOfNoiseEndToEndTests.program, ["--data-dir", device.path, "--server", server.url, "-c", line], stdin: stdin)
        }

        /// Records of `son` the server holds for everyone (read from its database, as a coordinator could).
        func sonRecordsOnServer() throws -> [String] {
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            sqlite.arguments = [server.database, "SELECT client_id FROM module_records WHERE module_id = 'son' AND deleted = 0 ORDER BY client_id"]
            let pipe = Pipe()
            sqlite.standardOutput = pipe
            try sqlite.run()
            sqlite.waitUntilExit()
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").map(String.init)
        }
    }

    static func play(_ setup: Setup, _ device: TemporaryDataDirectory, rating: Int) throws {
        let wav = device.path + "-play.wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let play = try setup.run(device, command("play pink-noise --minutes 1 --out \(wav) --rating \(rating)"))
        #expect(play.status == 0, "\(play.err)")
    }

    static func stats(_ setup: Setup, _ device: TemporaryDataDirectory) throws -> [[String: Any]] {
        let stats = try setup.run(device, command("stats --all --json"))
        #expect(stats.status == 0, "\(stats.err)")
        let object = try JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any]
        return object?["recent"] as? [[String: Any]] ?? []
    }

    @Test("a session, a favourite and the frequency recorded on one device appear on a second one after login and sync")
    func secondDeviceSeesSessions() throws {
        let setup = try Setup(name: "noor")
        let first = TemporaryDataDirectory(), second = TemporaryDataDirectory()
        #expect(try setup.run(first, "login noor", stdin: setup.password + "\n").status == 0)
        try Self.play(setup, first, rating: 2)
        #expect(try setup.run(first, Self.command("favorite add rain")).status == 0)
        #expect(try setup.run(first, Self.command("frequency set 5000")).status == 0)
        let sync = try setup.run(first, "sync")
        #expect(sync.status == 0, "\(sync.err)")
        #expect(try setup.sonRecordsOnServer().filter { $0.hasPrefix("session:") }.count == 1)

        let login = try setup.run(second, "login noor", stdin: setup.password + "\n")
        #expect(login.status == 0, "\(login.err)")
        let recent = try Self.stats(setup, second)
        #expect(recent.count == 1)
        #expect(recent.first?["sound"] as? String == "pink-noise")
        #expect(recent.first?["rating"] as? Int == 2)
        #expect(try setup.run(second, Self.command("favorite list --json")).out.contains("\"rain\""))
        #expect(try setup.run(second, Self.command("frequency")).out.contains("5000 Hz"))

        // Removing the favourite on the second device removes it on the first after its sync.
        #expect(try setup.run(second, Self.command("favorite remove rain")).status == 0)
        #expect(try setup.run(second, "sync").status == 0)
        #expect(try setup.run(first, "sync").status == 0)
        #expect(!(try setup.run(first, Self.command("favorite list --json")).out.contains("\"rain\"")))
    }

    @Test("guest data goes to an account only when the person says so at login; saying no keeps it here")
    func guestDataAttachedOnlyOnConsent() throws {
        let setup = try Setup(name: "gwen")
        let device = TemporaryDataDirectory()
        try Self.play(setup, device, rating: 3)  // as a guest: nobody is logged in

        let declined = try setup.run(device, "login gwen", stdin: setup.password + "\nno\n")
        #expect(declined.status == 1)
        #expect(declined.err.contains("the entry recorded here as a guest stays on this device"))
        #expect(declined.err.split(separator: "\n").count == 1)
        #expect(try setup.run(device, "sync").status == 1)  // not logged in: nothing left the device
        #expect(try setup.sonRecordsOnServer().isEmpty)
        // End of input at the question is no consent either.
        #expect(try setup.run(device, "login gwen", stdin: setup.password + "\n").status == 1)
        #expect(try setup.sonRecordsOnServer().isEmpty)

        let accepted = try setup.run(device, "login gwen", stdin: setup.password + "\nyes\n")
        #expect(accepted.status == 0, "\(accepted.err)")
        #expect(accepted.out.contains("Logged in as gwen"))
        #expect(try setup.sonRecordsOnServer().filter { $0.hasPrefix("session:") }.count == 1)
        #expect(try Self.stats(setup, device).count == 1)
    }

    @Test("a newer sound catalogue put on the server is served with an ETag and becomes active; a broken one is refused in one line")
    func catalogueFromServer() throws {
        let setup = try Setup(name: "cato")
        let device = TemporaryDataDirectory()
        #expect(try setup.run(device, "login cato", stdin: setup.password + "\n").status == 0)
        let bundledURL = Repository.root.appendingPathComponent("Configurations/Resources/sounds.json")
        var catalogue = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: bundledURL)) as? [String: Any])
        var categories = try #require(catalogue["categories"] as? [[String: Any]])
        var sounds = try #require(categories[0]["sounds"] as? [[String: Any]])
        sounds.append(["id": "server-pink", "title": ["en": "Pink noise from the server", "de": "Rosa Rauschen vom Server"],
                       "kind": "noise", "parameters": ["color": "pink"], "length": 90])
        categories[0]["sounds"] = sounds
        catalogue["categories"] = categories
        catalogue["version"] = 99
        let file = setup.server.directory + "/sounds-99.json"
        try JSONSerialization.data(withJSONObject: catalogue).write(to: URL(fileURLWithPath: file))
        let put = try setup.server.coordinator(["resource", "put", "son", "sounds", file])
        #expect(put.status == 0, "\(put.err)")

        // The route answers with an ETag, and 304 when it is sent back.
        let first = try Self.curl(["-s", "-D", "-", "-o", "/dev/null", setup.server.url + "/api/v1/resources/son/sounds"])
        let etag = try #require(first.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(5)
            .trimmingCharacters(in: .whitespaces))
        let again = try Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: \(etag)",
                                   setup.server.url + "/api/v1/resources/son/sounds"])
        #expect(again == "304")

        #expect(try setup.run(device, "sync").status == 0)
        let listing = try setup.run(device, Self.command("sounds --json")).out
        #expect(listing.contains("\"catalogueVersion\" : 99"))
        #expect(listing.contains("\"catalogueSource\" : \"server\""))
        #expect(listing.contains("server-pink"))

        // A catalogue the player cannot use: one line at sync, and version 99 stays.
        sounds[sounds.count - 1]["kind"] = "fm-sweep"
        categories[0]["sounds"] = sounds
        catalogue["categories"] = categories
        catalogue["version"] = 100
        try JSONSerialization.data(withJSONObject: catalogue).write(to: URL(fileURLWithPath: file))
        #expect(try setup.server.coordinator(["resource", "put", "son", "sounds", file]).status == 0)
        let refused = try setup.run(device, "sync")
        #expect(refused.status == 0, "\(refused.err)")
        let lines = refused.err.split(separator: "\n").filter { $0.contains("sound catalogue") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("fm-sweep") == true)
        #expect(try setup.run(device, Self.command("sounds --json")).out.contains("\"catalogueVersion\" : 99"))
    }

    static func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("the standalone program offers the tinnitus profile and settings; inside uniti the host provides them")
    func commandSetsDiffer() throws {
        let device = TemporaryDataDirectory()
        if Builds.isIntegrated {
            for line in ["son tinnitus-profile", "son settings"] {
                let result = try Program.run("uniti", ["--data-dir", device.path, "-c", line])
                #expect(result.status == 1)
                #expect(result.err.contains("has no command"), "\(result.err)")
            }
        } else {
            let help = try Program.run("shades-of-noise", ["--data-dir", device.path, "-c", "help"])
            #expect(help.out.contains("tinnitus-profile") && help.out.contains("settings"))
        }
    }

    @Test("profile: choosing again clears a single choice, multiple choice toggles, every change is kept with its percentage",
          .enabled(if: !Builds.isIntegrated))
    func profileQuestionnaire() throws {
        let device = TemporaryDataDirectory()
        func run(_ line: String, stdin: String = "") throws -> Program.Result {
            try Program.run("shades-of-noise", ["--data-dir", device.path, "-c", line], stdin: stdin)
        }
        func percent() throws -> Int {
            let object = try JSONSerialization.jsonObject(with: Data(try run("tinnitus-profile --json").out.utf8)) as? [String: Any]
            return object?["percentComplete"] as? Int ?? -1
        }
        #expect(try percent() == 0)
        let chosen = try run("tinnitus-profile 1 2")
        #expect(chosen.status == 0, "\(chosen.err)")
        #expect(chosen.out.contains("(•) 2)"))
        let oneAnswered = try percent()
        #expect(oneAnswered > 0)
        let asked = try run("tinnitus-profile 3", stdin: "0 1\n")  // multiple choice, answered at the prompt
        #expect(asked.out.contains("[x] 0)") && asked.out.contains("[x] 1)"))
        #expect(try percent() > oneAnswered)
        #expect(try run("tinnitus-profile 3 1").out.contains("[ ] 1)"))
        let cleared = try run("tinnitus-profile 1 2")
        #expect(cleared.out.contains("( ) 2)"))
        let list = try run("tinnitus-profile")
        #expect(list.out.contains("[ ] 1."))
        #expect(list.out.contains("[x] 3."))
        let bad = try run("tinnitus-profile 3 seven")
        #expect(bad.status == 1)
        #expect(bad.err.split(separator: "\n").count == 1)
    }

    @Test("settings: pages, version, and a language switch that applies at once", .enabled(if: !Builds.isIntegrated))
    func settings() throws {
        let device = TemporaryDataDirectory()
        let switched = try Program.run("shades-of-noise", ["--data-dir", device.path], stdin: "settings language de\nsettings\nsettings imprint\n")
        #expect(switched.status == 0, "\(switched.err)")
        #expect(switched.out.contains("Die Sprache ist jetzt Deutsch."))
        #expect(switched.out.contains("Sprache: Deutsch"))
        #expect(switched.out.contains("Impressum"))
        let version = try Program.run("shades-of-noise", ["--data-dir", device.path, "-c", "settings version"])
        #expect(version.out.contains("shades-of-noise") && version.out.contains("ShadesOfNoise"))
        let unknown = try Program.run("shades-of-noise", ["--data-dir", device.path, "-c", "settings recipes"])
        #expect(unknown.status == 1)
    }

    @Test("on a terminal the standalone program starts with the login screen; Enter continues as a guest", .enabled(if: !Builds.isIntegrated))
    func startScreen() throws {
        let device = TemporaryDataDirectory()
        let terminal = try Terminal("shades-of-noise", ["--data-dir", device.path])
        #expect(terminal.waitFor("continue as a guest"))
        #expect(terminal.waitFor("Choose 1-4"))
        terminal.type("4\r")
        #expect(terminal.waitFor("You continue as a guest"))
        #expect(terminal.waitForPrompt("shades-of-noise>", after: "You continue as a guest"))
        terminal.type("exit\r")
        #expect(terminal.waitForExit() == 0)
    }
}
