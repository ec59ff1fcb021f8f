import Foundation
import Testing
import UNITITesting

/// TinnitusNavigator with the real program (`uniti` in the integrated build, the standalone
/// `tinnitus-navigator` in the other) and a real `uniti-server` on loopback: one person's
/// record on two devices (thesis FR1–FR6, FR12, NFR1, exchange process 6.1).
@Suite("TinnitusNavigator: one record on two devices through a real server", .serialized)
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
