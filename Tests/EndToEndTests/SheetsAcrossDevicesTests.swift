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
}
