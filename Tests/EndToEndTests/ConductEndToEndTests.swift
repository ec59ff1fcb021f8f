import Foundation
import UNITITesting
import Testing

/// Versioned consent, leaving with deletion and account deletion (issue 30) with the real
/// `uniti` client and a real `uniti-server` on loopback, on SQLite and on PostgreSQL.
@Suite("Consent and erasure against a real server", .enabled(if: Builds.isIntegrated), .serialized, .timeLimit(.minutes(15)))
struct ConductEndToEndTests {
    static let answers = "yes\n35\n60\n4\n2\n50\n80\n25\n"

    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A server on `store` with a running public study `ema` (tyt, the momentary questionnaire)
    /// whose consent comes from a Markdown file.
    struct Setup {
        let server: StudyServer
        let store: Store

        init(_ store: Store) throws {
            self.store = store
            server = try StudyServer(database: store == .postgres ? try PostgresCluster.shared().createDatabase() : nil)
            try server.createStudy("ema", modules: "tyt", questionnaires: ["tyt-momentary"])
            let updated = try server.coordinator(["study", "update", "ema", "--consent", try consentFile("consent.en.md", "Version one.")])
            #expect(updated.status == 0, "\(updated.err)")
        }

        func consentFile(_ name: String, _ text: String) throws -> String {
            let path = server.directory + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// A registered, activated, logged-in person on a data directory of their own who joined
        /// `ema` (agreeing to its consent); returns the options every run takes.
        func participant(_ name: String, email: String? = nil, data: TemporaryDataDirectory) throws -> [String] {
            let base = ["--data-dir", data.path, "--server", server.url]
            let address = email ?? "\(name)@example.org"
            let register = try Program.run("uniti", base + ["-c", "register"],
                                           stdin: "\(name)\n\(address)\n\(address)\npassword-\(name)\npassword-\(name)\n")
            #expect(register.status == 0, "\(register.err)")
            let code = try #require(try server.mailedCode(to: address))
            #expect(try Program.run("uniti", base + ["-c", "activate \(code)"]).status == 0)
            #expect(try Program.run("uniti", base + ["-c", "login \(name)"], stdin: "password-\(name)\n").status == 0)
            let join = try Program.run("uniti", base + ["-c", "study join ema"], stdin: "y\n")
            #expect(join.status == 0, "\(join.err)")
            #expect(join.out.contains("Version one."), "joining shows the consent: \(join.out)")
            return base
        }

        /// Answers the momentary questionnaire once and syncs.
        func answer(_ base: [String]) throws {
            #expect(try Program.run("uniti", base + ["-c", "tyt fill"], stdin: ConductEndToEndTests.answers).status == 0)
            #expect(try Program.run("uniti", base + ["-c", "sync"]).status == 0)
        }

        func sheets(_ condition: String = "true") throws -> Int {
            Int(try server.query("SELECT COUNT(*) FROM answer_sheets WHERE \(condition)").first ?? "") ?? -1
        }

        /// Whether `value` is still in the database files after a deletion, as far as the store
        /// promises (`Documentation/uniti-server.md`, "Deletion"): on SQLite at once; on
        /// PostgreSQL once the nightly `maintenance compact --if-needed` ran (a plain VACUUM,
        /// which the deletion runs, can leave the bytes in the pages' free space), which finds
        /// the deletion and compacts.
        func filesStillHold(_ value: String) throws -> Bool {
            if store == .postgres {
                let compacted = try server.coordinator(["maintenance", "compact", "--if-needed"])
                #expect(compacted.status == 0, "\(compacted.err)")
                #expect(compacted.out.contains("Rewrote the tables"), "\(compacted.out)")
            }
            return try filesContain(value)
        }

        /// The database files hold `value` somewhere (SQLite: the file and its WAL; PostgreSQL:
        /// the cluster's table and index files after a checkpoint).
        func filesContain(_ value: String) throws -> Bool {
            let paths: [String]
            switch store {
            case .sqlite: paths = [server.database, server.database + "-wal"]
            case .postgres:
                _ = try server.query("CHECKPOINT")
                let base = try PostgresCluster.shared().directory + "/data/base"
                paths = (FileManager.default.enumerator(atPath: base)?.allObjects as? [String] ?? []).map { base + "/" + $0 }
            }
            let needle = Data(value.utf8)
            return paths.contains { FileManager.default.contents(atPath: $0)?.range(of: needle) != nil }
        }
    }

    @Test("a new consent version holds back an upload (waiting, not rejected) until agreed; then the waiting sheet arrives exactly once",
          arguments: Store.allCases)
    func newConsentHoldsBackUploads(_ store: Store) throws {
        let setup = try Setup(store)
        let data = TemporaryDataDirectory()
        let base = try setup.participant("eve", data: data)
        try setup.answer(base)
        #expect(try setup.sheets() == 1)

        let changed = try setup.server.coordinator(["study", "update", "ema", "--consent", try setup.consentFile("v2.en.md", "Version two.")])
        #expect(changed.status == 0, "\(changed.err)")
        #expect(try Program.run("uniti", base + ["-c", "tyt fill"], stdin: Self.answers).status == 0)
        let sync = try Program.run("uniti", base + ["-c", "sync"])
        #expect(sync.status == 0, "\(sync.err)")
        #expect(sync.out.contains("Study ema asks for your consent to a new text"), "\(sync.out)")
        #expect(!sync.out.contains("until you join"), "a sheet held for consent is not said to wait for a join: \(sync.out)")
        #expect(try setup.sheets() == 1, "the server took a sheet before the new consent was agreed")
        let status = try Program.run("uniti", base + ["-c", "sync --status --json"])
        let held = try #require(try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any])
        #expect((held["waiting"] as? [Any])?.count == 1 && (held["rejected"] as? [Any])?.isEmpty == true, "\(status.out)")

        let shown = try Program.run("uniti", base + ["-c", "study consent ema"], stdin: "n\n")
        #expect(shown.out.contains("Version two.") && shown.out.contains("did not agree"), "\(shown.out)")
        #expect(try setup.sheets() == 1)
        let agreed = try Program.run("uniti", base + ["-c", "study consent ema --agree"])
        #expect(agreed.status == 0, "\(agreed.err)")
        #expect(try setup.sheets() == 2)
        #expect(try Program.run("uniti", base + ["-c", "sync"]).status == 0)
        #expect(try setup.sheets() == 2)
        #expect(try setup.sheets("true") == Int(try setup.server.query("SELECT COUNT(DISTINCT client_id) FROM answer_sheets").first ?? ""))

        // What the person agreed to, and what the coordinator sees.
        let mine = try Program.run("uniti", base + ["-c", "study consent ema"])
        #expect(mine.out.contains("Version one.") && mine.out.contains("Version two."), "\(mine.out)")
        let users = try setup.server.coordinator(["users", "list"])
        #expect(users.out.contains("ema v2"), "\(users.out)")
    }

    @Test("a participant who leaves with deletion disappears from the export and the comparison, and no value of theirs is left in the database files",
          arguments: Store.allCases)
    func leavingWithDeletion(_ store: Store) throws {
        let setup = try Setup(store)
        let eveData = TemporaryDataDirectory(), bobData = TemporaryDataDirectory()
        let eve = try setup.participant("eve", data: eveData)
        let bob = try setup.participant("bob", data: bobData)
        for base in [eve, bob] { try setup.answer(base) }
        let eveId = try #require(try setup.server.query("SELECT id FROM users WHERE username = 'eve'").first)
        let eveSheet = try #require(try setup.server.query("SELECT client_id FROM answer_sheets WHERE user_id = \(eveId)").first)
        let bobSheet = try #require(try setup.server.query("SELECT client_id FROM answer_sheets WHERE user_id <> \(eveId)").first)
        #expect(try setup.filesContain(eveSheet), "the sheet is in the files before (else the scan proves nothing)")

        // One more answer, given offline, waits in eve's outbox when she leaves with deletion.
        #expect(try Program.run("uniti", ["--data-dir", eveData.path, "--server", "http://127.0.0.1:1", "-c", "tyt fill"],
                                stdin: Self.answers).status == 0)
        let left = try Program.run("uniti", eve + ["-c", "study leave ema --delete-answers"], stdin: "y\n")
        #expect(left.status == 0, "\(left.err)")
        #expect(left.out.contains("deleted"), "\(left.out)")
        #expect(left.out.contains("not yet sent") && left.out.contains("discarded"), "\(left.out)")
        #expect(try setup.sheets("user_id = \(eveId)") == 0)
        // Nothing of the study is left to send: joining again does not bring the unsent answer back.
        #expect(try Program.run("uniti", eve + ["-c", "study join ema"], stdin: "y\n").status == 0)
        #expect(try Program.run("uniti", eve + ["-c", "sync"]).status == 0)
        #expect(try SQLiteShell.query(eveData.path + "/uniti.sqlite", "SELECT COUNT(*) FROM core_outbox WHERE kind = 'answerSheet'") == ["0"])
        #expect(try setup.sheets("user_id = \(eveId)") == 0)
        #expect(try Program.run("uniti", eve + ["-c", "study leave ema --delete-answers"], stdin: "y\n").status == 0)
        #expect(try setup.server.query("SELECT COUNT(*) FROM comparison_totals WHERE user_id = \(eveId)") == ["0"])
        let out = setup.server.directory + "/export"
        #expect(try setup.server.coordinator(["export", "--study", "ema", "--format", "csv", "--out", out]).status == 0)
        let csv = try String(contentsOfFile: out + "/ema-answers.csv", encoding: .utf8)
        #expect(!csv.contains(eveSheet) && csv.contains(bobSheet))
        #expect(try !setup.filesStillHold(eveSheet), "a deleted sheet's id is left in the database files")
        #expect(try setup.filesContain(bobSheet))
    }

    @Test("account delete asks for the password, deletes everything on the server, then after a second yes the data directory",
          arguments: Store.allCases)
    func accountDeletion(_ store: Store) throws {
        let setup = try Setup(store)
        let data = TemporaryDataDirectory()
        let email = "erase-me-\(UUID().uuidString.lowercased())@example.org"
        let base = try setup.participant("eve", email: email, data: data)
        try setup.answer(base)
        let download = data.path + "-download.json"
        let saved = try Program.run("uniti", base + ["-c", "account data --out \(download)"])
        #expect(saved.status == 0, "\(saved.err)")
        let document = try String(contentsOfFile: download, encoding: .utf8)
        #expect(document.contains(email) && document.contains("Version one."), "the download holds the account and the consent")
        #expect(try FileManager.default.attributesOfItem(atPath: download)[.posixPermissions] as? Int == 0o600)
        try? FileManager.default.removeItem(atPath: download)
        #expect(try setup.filesContain(email))

        let wrong = try Program.run("uniti", base + ["-c", "account delete"], stdin: "guess\n")
        #expect(wrong.status == 1 && wrong.err.split(separator: "\n").count == 1, "\(wrong.err)")
        #expect(try setup.server.query("SELECT COUNT(*) FROM users") == ["1"])

        let deleted = try Program.run("uniti", base + ["-c", "account delete"], stdin: "password-eve\ny\n")
        #expect(deleted.status == 0, "\(deleted.err)")
        #expect(try setup.server.query("SELECT COUNT(*) FROM users") == ["0"])
        #expect(try setup.sheets() == 0)
        #expect(!FileManager.default.fileExists(atPath: data.path), "the data directory is gone after the second yes")
        #expect(try !setup.filesStillHold(email), "the deleted address is left in the database files")
    }
}
