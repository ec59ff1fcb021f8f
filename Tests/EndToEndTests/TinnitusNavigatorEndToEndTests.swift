import Foundation
import Testing
import UNITITesting

/// TinnitusNavigator with the real program (`uniti` in the integrated build, the standalone
/// `tinnitus-navigator` in the other) and a real `uniti-server` on loopback: one person's
/// record on two devices (thesis FR1–FR6, FR12, NFR1, exchange process 6.1).
@Suite("TinnitusNavigator: one record on two devices through a real server", .serialized, .timeLimit(.minutes(15)))
struct TinnitusNavigatorEndToEndTests {
    static let program = Builds.isIntegrated ? "uniti" : "tinnitus-navigator"
    /// Module commands are typed `tn …` in the shell and bare in the standalone program.
    static let prefix = Builds.isIntegrated ? "tn " : ""
    static let email = "nora.tn@example.org"

    struct Device {
        let data = TemporaryDataDirectory()
        let server: StudyServer

        @discardableResult
        func run(_ command: String, stdin: String = "", server url: String? = nil) throws -> Program.Result {
            try Program.run(TinnitusNavigatorEndToEndTests.program, ["--data-dir", data.path, "--server", url ?? server.url, "-c", command],
                            stdin: stdin)
        }

        func tn(_ command: String, stdin: String = "", server url: String? = nil) throws -> Program.Result {
            try run(TinnitusNavigatorEndToEndTests.prefix + command, stdin: stdin, server: url)
        }

        func json(_ command: String) throws -> [[String: Any]] {
            let result = try tn(command + " --json")
            #expect(result.status == 0, "\(command): \(result.err)")
            return try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]] ?? []
        }

        /// Every byte the program keeps in its data directory (database, WAL, history, caches).
        func storedBytes() throws -> Data {
            var all = Data()
            let enumerator = FileManager.default.enumerator(atPath: data.path)
            while let name = enumerator?.nextObject() as? String {
                let path = data.path + "/" + name
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    all.append(FileManager.default.contents(atPath: path) ?? Data())
                }
            }
            return all
        }
    }

    /// Registers and activates the person; logs in on a device.
    static func account(_ server: StudyServer) throws {
        let device = Device(server: server)
        let register = try device.run("register", stdin: "nora\n\(email)\n\(email)\nrecord-pass-1\nrecord-pass-1\n")
        #expect(register.status == 0, "\(register.err)")
        let code = try #require(try server.mailedCode(to: email))
        #expect(try device.run("activate \(code)").status == 0)
    }

    static func login(_ device: Device) throws {
        let login = try device.run("login \(email)", stdin: "record-pass-1\n")
        #expect(login.status == 0, "\(login.err)")
    }

    @Test("a record the server refuses is rejected alone, with its reason; the others of its batch arrive")
    func refusedRecordAlone() throws {
        let server = try StudyServer()
        try Self.account(server)
        let laptop = Device(server: server)
        try Self.login(laptop)
        let down = "http://127.0.0.1:1"
        for title in ["First", "Second", "Third"] {
            #expect(try laptop.tn("event add --title '\(title)' --at '2026-11-20 14:30' --type appointment", server: down).status == 0)
        }
        // One queued change is made into one the server refuses (a client id with a space).
        let database = laptop.data.path + "/uniti.sqlite"
        try SQLiteShell.query(database, """
            UPDATE core_outbox SET payload = CAST(json_set(CAST(payload AS TEXT), '$.clientId', 'not valid') AS BLOB)
            WHERE id = (SELECT MIN(id) FROM core_outbox WHERE kind = 'record')
            """)
        let synced = try laptop.run("sync")
        #expect(synced.status == 0, "\(synced.err)")
        #expect(try server.query("SELECT COUNT(*) FROM module_records WHERE module_id = 'tn'") == ["2"])
        let status = try JSONSerialization.jsonObject(with: Data(try laptop.run("sync --status --json").out.utf8)) as? [String: Any]
        let rejected = status?["rejected"] as? [[String: Any]] ?? []
        #expect(rejected.count == 1 && status?["pending"] as? Int == 0, "\(String(describing: status))")
        #expect((rejected.first?["reason"] as? String)?.contains("clientId") == true, "\(rejected)")
    }

    @Test("entered offline on one device, synced, edited and deleted on the other: every change arrives exactly once; no e-mail kept; logout forgets the token")
    func twoDevices() throws {
        let server = try StudyServer()
        try Self.account(server)
        let laptop = Device(server: server)
        if !Builds.isIntegrated {
            // The standalone program has no guest use (the record lives on the server too): its
            // commands wait for a login, and the start screen offers login, register, forgot password.
            let refused = try laptop.run("events")
            #expect(refused.status != 0 && refused.err.contains("needs an account"), "\(refused.err)")
        }
        try Self.login(laptop)
        // Offline: the server cannot be reached, the record keeps working and queues every change.
        let down = "http://127.0.0.1:1"
        for command in ["event add --title 'ENT appointment' --at '2026-11-20 14:30' --type appointment --description 'Dr. Weber'",
                        "event add --title 'Night attack' --at '2026-11-22 02:10' --type attack",
                        "therapy add --name 'Hearing aids' --type hearing-aid --start 2026-03-01 --note 'help in meetings'",
                        "therapy add --name 'TRT' --type trt --start 2026-06-01 --end 2027-06-01"] {
            let added = try laptop.tn(command, server: down)
            #expect(added.status == 0, "\(command): \(added.err)")
        }
        #expect(try laptop.json("events").count == 2)
        let offline = try laptop.run("sync", server: down)
        #expect(offline.status != 0 && offline.err.split(separator: "\n").count == 1, "\(offline.err)")
        #expect(try server.query("SELECT COUNT(*) FROM module_records WHERE module_id = 'tn'") == ["0"])

        // Back online: everything goes out once.
        let synced = try laptop.run("sync")
        #expect(synced.status == 0, "\(synced.err)")
        #expect(try server.query("SELECT COUNT(*) FROM module_records WHERE module_id = 'tn'") == ["4"])

        // The phone logs in and downloads the whole record (FR2).
        let phone = Device(server: server)
        try Self.login(phone)
        let events = try phone.json("events")
        #expect(events.map { $0["title"] as? String } == ["Night attack", "ENT appointment"])
        let therapies = try phone.json("therapies --sort name")
        #expect(therapies.map { $0["name"] as? String } == ["Hearing aids", "TRT"])

        // Edited and deleted on the phone.
        let appointment = try #require(events.last?["id"] as? String)
        let trt = try #require(therapies.last?["id"] as? String)
        #expect(try phone.tn("event edit \(appointment.prefix(8)) --title 'ENT appointment (moved)' --at '2026-11-27 09:00'").status == 0)
        #expect(try phone.tn("therapy delete \(trt.prefix(8)) --yes").status == 0)
        #expect(try phone.run("sync").status == 0)

        // The laptop gets the edit in place of the old entry, and loses the deleted therapy.
        #expect(try laptop.run("sync").status == 0)
        let after = try laptop.json("events")
        #expect(after.count == 2)
        #expect(after.first { ($0["id"] as? String) == appointment }?["title"] as? String == "ENT appointment (moved)")
        #expect(try laptop.json("therapies").map { $0["name"] as? String } == ["Hearing aids"])
        // One row per entry on the server: the edit replaced, the deletion is a tombstone.
        #expect(try server.query("SELECT COUNT(*), COUNT(DISTINCT client_id), SUM(deleted) FROM module_records WHERE module_id = 'tn'") == ["4|4|1"])
        // A second sync changes nothing.
        #expect(try laptop.run("sync").status == 0)
        #expect(try laptop.json("events").count == 2)

        // An audiogram from the laptop, corrected on the phone: one entry on both, the correction wins.
        let audiogram = try laptop.tn("audiogram add --date 2026-11-20 --left 10,15,20,25,30,40,50 --right 10,10,15,20,35,45,55 --extra 6000=45/50 --pitch-left 6000")
        #expect(audiogram.status == 0, "\(audiogram.err)")
        #expect(try laptop.run("sync").status == 0)
        #expect(try phone.run("sync").status == 0)
        let pulled = try phone.json("audiograms")
        #expect(pulled.count == 1)
        let audiogramID = try #require(pulled.first?["id"] as? String)
        #expect(try phone.tn("audiogram edit \(audiogramID.prefix(8)) --right 10,10,15,20,35,60,55").status == 0)
        #expect(try phone.run("sync").status == 0)
        #expect(try laptop.run("sync").status == 0)
        let shown = try laptop.tn("audiogram show \(audiogramID.prefix(8))")
        #expect(shown.status == 0)
        #expect(try laptop.json("audiograms").count == 1)
        #expect(shown.out.contains("4000     60"), "\(shown.out)")

        // A clinical questionnaire completed on the phone is completed and locked on the laptop.
        let filled = try phone.tn("fill tn-profile", stdin: "3\n2\n1\n2\nsave\n")
        #expect(filled.status == 0, "\(filled.err)")
        #expect(try phone.run("sync").status == 0)
        #expect(try laptop.run("sync").status == 0)
        let profile = try laptop.json("questionnaires").first { $0["id"] as? String == "tn-profile" }
        #expect(profile?["completed"] as? Bool == true && profile?["locked"] as? Bool == true)
        let locked = try laptop.tn("fill tn-profile", stdin: "3\n2\n1\n2\nsave\n")
        #expect(locked.status != 0 && locked.err.contains("locked"), "\(locked.err)")
        #expect(try server.query("SELECT COUNT(*) FROM module_records WHERE module_id = 'tn' AND client_id LIKE 'completed:%'") == ["1"])

        // The whole record as FHIR R4, every resource valid; and the report for the doctor, printed.
        let export = NSTemporaryDirectory() + "tn-e2e-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: export) }
        #expect(try laptop.tn("export --fhir \(export)").status == 0)
        let validation = try FHIRValidator.validate(export)
        #expect(validation.status == 0, "\(validation.out)\(validation.err)")
        let bundle = try String(contentsOfFile: export, encoding: .utf8)
        #expect(bundle.contains("ENT appointment (moved)") && !bundle.contains(Self.email))
        let report = URL(fileURLWithPath: NSTemporaryDirectory() + "tn-e2e-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: report) }
        #expect(try laptop.tn("report --out \(report.path) --from 2026-01-01 --to 2026-12-31").status == 0)
        let printed = try HeadlessChromium.printedText(report).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for expected in ["ENT appointment (moved)", "Night attack", "Hearing aids", "help in meetings", "Audiogram of 2026-11-20"] {
            #expect(printed.contains(expected), "'\(expected)' not in the printed report")
        }
        #expect(!printed.contains("TRT"), "the deleted therapy is in the report")

        // NFR1: no e-mail address in anything the program keeps; only the token.
        for device in [laptop, phone] {
            let bytes = try device.storedBytes()
            #expect(bytes.range(of: Data(Self.email.utf8)) == nil, "the data directory keeps the e-mail address")
            #expect(bytes.range(of: Data("accessToken".utf8)) != nil)
        }
        // FR3: logout deletes the token.
        #expect(try laptop.run("logout").status == 0)
        #expect(try laptop.storedBytes().range(of: Data("accessToken".utf8)) == nil)
    }
}
