import Foundation
import Testing
import UNITITesting

/// A person's own answer sheets come back to their other devices: the server keeps them, and
/// each device pulls them by cursor and gives them to the module that asked them.
@Suite("Answer sheets across devices", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct SheetsAcrossDevicesTests {
    /// The values of `tyt results --json`, one array per check-in, oldest first.
    static func results(_ setup: SyncEndToEndTests.Setup, device: TemporaryDataDirectory) throws -> [[Int]] {
        let output = try Program.run("uniti", ["--data-dir", device.path, "--server", setup.server.url, "-c", "tyt results --json"])
        #expect(output.status == 0, "\(output.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.out.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        return results.map { ($0["values"] as? [Int]) ?? [] }
    }

    @Test("the phone's check-ins show in the laptop's tyt results after a sync, and the laptop's on the phone; none is stored twice")
    func checkInsFollowThePerson() throws {
        let phone = try SyncEndToEndTests.Setup()
        // Two check-ins on the phone (yes = 0, loudness 35 / 70, ...).
        #expect(try phone.run("tyt fill", stdin: SyncEndToEndTests.answers).status == 0)
        #expect(try phone.run("tyt fill", stdin: "no\n70\n60\n4\n2\n50\n80\n25\n").status == 0)
        #expect(try phone.run("sync").status == 0)
        #expect(try phone.sheetsOnServer() == 2)

        // The laptop: a new data directory, the same person.
        let laptop = TemporaryDataDirectory()
        let login = try Program.run("uniti", ["--data-dir", laptop.path, "--server", phone.server.url, "-c", "login eve"],
                                    stdin: "password-eve\n")
        #expect(login.status == 0, "\(login.err)")
        #expect(try Program.run("uniti", ["--data-dir", laptop.path, "--server", phone.server.url, "-c", "sync"]).status == 0)
        let onLaptop = try Self.results(phone, device: laptop)
        #expect(onLaptop == [[0, 35, 60, 4, 2, 50, 80, 25], [1, 70, 60, 4, 2, 50, 80, 25]])

        // A check-in on the laptop goes up once and comes to the phone; the phone's own two come
        // back to it without being doubled.
        let laptopFill = try Program.run("uniti", ["--data-dir", laptop.path, "--server", phone.server.url, "-c", "tyt fill"],
                                         stdin: "yes\n10\n20\n3\n3\n30\n40\n50\n")
        #expect(laptopFill.status == 0, "\(laptopFill.err)")
        #expect(try Program.run("uniti", ["--data-dir", laptop.path, "--server", phone.server.url, "-c", "sync"]).status == 0)
        #expect(try phone.run("sync").status == 0)
        #expect(try phone.sheetsOnServer() == 3)
        let onPhone = try Self.results(phone, device: phone.data)
        #expect(onPhone.count == 3)
        #expect(onPhone.contains([0, 10, 20, 3, 3, 30, 40, 50]))
        #expect(try Self.results(phone, device: laptop).count == 3)
        // Pulling again changes nothing: the cursor moved with the sheets.
        #expect(try phone.run("sync").status == 0)
        #expect(try Self.results(phone, device: phone.data).count == 3)
    }

    @Test("a sync does not download the sheets it has just delivered, while a sheet another device sent in between still arrives")
    func ownUploadsAreNotPulledBack() throws {
        let phone = try SyncEndToEndTests.Setup()
        #expect(try phone.run("tyt fill", stdin: SyncEndToEndTests.answers).status == 0)
        #expect(try phone.run("sync").status == 0)
        // A second check-in, answered while the server cannot be reached (nothing listens on port
        // 9), and beside it in the outbox a copy under a new id that this device never stored (as
        // Scripts/bench/sync queues its sheets): only a download could store the copy here.
        #expect(try phone.run("tyt fill", stdin: "no\n70\n60\n4\n2\n50\n80\n25\n", server: "http://127.0.0.1:9").status == 0)
        try phone.sqlite("""
            INSERT INTO core_outbox (clientID, kind, moduleID, payload, createdAt, attempts, nextAttemptAt, state)
            SELECT 'sheet:' || u, kind, moduleID, CAST(replace(CAST(payload AS TEXT), json_extract(CAST(payload AS TEXT), '$.id'), u) AS BLOB),
                   createdAt, 0, nextAttemptAt, 'pending'
            FROM core_outbox, (SELECT 'C0FFEE00-0000-4000-8000-000000000001' AS u) WHERE kind = 'answerSheet'
            """)
        #expect(try phone.run("sync").status == 0)
        #expect(try phone.sheetsOnServer() == 3)
        #expect(try Self.results(phone, device: phone.data).count == 2)

        // The laptop has all three; it and the phone each answer once, the laptop syncs first: the
        // phone's upload then lies behind the laptop's sheet, so the phone pulls and finds it.
        let laptop = TemporaryDataDirectory()
        let laptopArguments = ["--data-dir", laptop.path, "--server", phone.server.url]
        #expect(try Program.run("uniti", laptopArguments + ["-c", "login eve"], stdin: "password-eve\n").status == 0)
        #expect(try Program.run("uniti", laptopArguments + ["-c", "sync"]).status == 0)
        #expect(try Self.results(phone, device: laptop).count == 3)
        #expect(try Program.run("uniti", laptopArguments + ["-c", "tyt fill"], stdin: "yes\n10\n20\n3\n3\n30\n40\n50\n").status == 0)
        #expect(try Program.run("uniti", laptopArguments + ["-c", "sync"]).status == 0)
        #expect(try phone.run("tyt fill", stdin: SyncEndToEndTests.answers).status == 0)
        #expect(try phone.run("sync").status == 0)
        #expect(try phone.sheetsOnServer() == 5)
        let onPhone = try Self.results(phone, device: phone.data)
        #expect(onPhone.count == 4)
        #expect(onPhone.contains([0, 10, 20, 3, 3, 30, 40, 50]))
    }
}
