import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48, "Randomisation" on the stores: who may be randomised, levels read from answers or
/// entered, an allocation once and final, the design fixed from the first, verify from the seed,
/// erasure keeping the sequence whole, and two stores (two server processes) randomising at once.
@Suite("Randomisation on SQLite and PostgreSQL: consenting members with complete data, once; verify; two processes at once", .timeLimit(.minutes(10)))
struct TrialStoreTests {
    let now = TestTime.now

    static let design = #"""
        {"arms": [{"id": "sound", "label": "Sound therapy", "ratio": 1}, {"id": "counselling", "label": "Counselling", "ratio": 1}],
         "factors": [{"id": "loudness", "levels": ["soft", "loud"], "from": {"questionnaire": "daily", "item": "loudness", "cuts": [50]}},
                     {"id": "hearing", "levels": ["aid", "none"]}],
         "method": "blocks", "blockMultiples": [1, 2]}
        """#

    /// A study with the daily questionnaire and a consent text (version 1), and `count` members
    /// who agreed to it, each with a daily sheet (loudness 20 for even, 80 for odd numbers).
    func study(_ store: ServerStore, members count: Int, consenting: Bool = true, answering: Bool = true) async throws -> [(Int64, String)] {
        try await store.createStudy(StudyRecord(id: "trial", title: LocalizedText(["en": "Trial"]), consent: LocalizedText(["en": "I agree."]),
                                                access: .public, modules: [.tys]), now: now)
        let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON().utf8), studyId: "trial")
        _ = try await store.addQuestionnaire(document, module: .tys, now: now)
        var members: [(Int64, String)] = []
        for index in 0..<count {
            let pseudonym = "p-\(1000 + index)"
            let id = try await store.createUser(username: "u\(index)", email: "u\(index)@example.org", passwordHash: "h", language: "en",
                                                pseudonym: pseudonym, now: now)
            try await store.setMembership(studyId: "trial", userId: id, status: .member, now: now)
            if consenting { _ = try await store.recordConsent(userId: id, studyId: "trial", version: 1, now: now) }
            if answering {
                _ = try await store.storeSheets(userId: id, sheets: [ValidatedSheet(sheet: sheet(loudness: index % 2 == 0 ? 20 : 80), studyId: "trial")],
                                                receivedAt: now)
            }
            members.append((id, pseudonym))
        }
        return members
    }

    func service(_ store: ServerStore) -> TrialService {
        TrialService(administration: StudyAdministration(store: store, actor: .operator, now: now))
    }

    func message(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("only a consenting member with complete data is randomised, once; levels come from answers or staff; the design is fixed from the first; verify agrees; an erased account's allocation stays", arguments: StoreKind.allCases)
    func randomiseOnce(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            let members = try await study(store, members: 6)
            let trials = service(store)
            #expect(await message { _ = try await trials.randomise(studyId: "trial", pseudonym: "p-1000", entered: [:]) }
                    == "trial is not a randomised study; set it up with 'randomisation setup'")
            _ = try await trials.setUp(studyId: "trial", design: Data(Self.design.utf8))

            // What stands in the way is named, all of it in one line.
            let outsider = try await store.createUser(username: "x", email: "x@example.org", passwordHash: "h", language: "en", pseudonym: "p-x", now: now)
            try await store.setMembership(studyId: "trial", userId: outsider, status: .pending, now: now)
            #expect(await message { _ = try await trials.randomise(studyId: "trial", pseudonym: "p-x", entered: ["hearing": "aid"]) }
                    == "p-x is not a member of trial")
            #expect(await message { _ = try await trials.randomise(studyId: "trial", pseudonym: "p-1000", entered: [:]) }
                    == "p-1000 cannot be randomised yet: hearing: to be entered (aid, none)")
            #expect(await message { _ = try await trials.randomise(studyId: "trial", pseudonym: "p-1000", entered: ["hearing": "aid", "loudness": "soft"]) }
                    == "loudness is read from the answers to daily (loudness); it is not entered")
            #expect(await message { _ = try await trials.randomise(studyId: "trial", pseudonym: "p-1000", entered: ["hearing": "some"]) }
                    == "the stratification data are not complete: hearing is \"some\", not one of aid, none")
            let late = try await store.createUser(username: "late", email: "late@example.org", passwordHash: "h", language: "en", pseudonym: "p-late", now: now)
            try await store.setMembership(studyId: "trial", userId: late, status: .member, now: now)
            #expect(await message { _ = try await trials.randomise(studyId: "trial", pseudonym: "p-late", entered: ["hearing": "aid"]) }
                    == "p-late cannot be randomised yet: consent: has not agreed to version 1; loudness: no answer to daily (loudness) yet")
            #expect(try await store.allocations(studyId: "trial").isEmpty)

            // Randomised: the level read from the newest answer (20 → soft, 80 → loud).
            var made: [Randomiser.Allocation] = []
            for (index, member) in members.enumerated() {
                made.append(try await trials.randomise(studyId: "trial", pseudonym: member.1, entered: ["hearing": index < 3 ? "aid" : "none"]))
            }
            #expect(made.map(\.sequence) == [1, 2, 3, 4, 5, 6])
            #expect(made.map(\.stratum) == ["loudness=soft|hearing=aid", "loudness=loud|hearing=aid", "loudness=soft|hearing=aid",
                                            "loudness=loud|hearing=none", "loudness=soft|hearing=none", "loudness=loud|hearing=none"])
            #expect(made.map(\.place) == [1, 1, 2, 1, 1, 2])
            #expect(Set(made.map(\.arm)).isSubset(of: ["sound", "counselling"]))
            // Final: a second time is refused, and so is a new design.
            let again = await message { _ = try await trials.randomise(studyId: "trial", pseudonym: "p-1000", entered: ["hearing": "aid"]) }
            #expect(again?.hasPrefix("p-1000 was randomised already (number 1, ") == true && again?.hasSuffix("); an allocation is final") == true, "\(again ?? "")")
            #expect(await message { _ = try await trials.setUp(studyId: "trial", design: Data(Self.design.utf8)) }
                    == "6 participant(s) of trial are randomised already: the design is fixed")
            let stored = try await store.allocations(studyId: "trial")
            #expect(stored.map(\.allocation) == made && stored.map(\.pseudonym) == members.map(\.1))

            // The audit trail says who was randomised, with the number and stratum, never the arm.
            let lines = try await store.rows("SELECT action, detail FROM audit_log WHERE study_id = 'trial' AND action LIKE 'trial.%' ORDER BY id")
            #expect(try lines.map { try $0["action"] as String } == ["trial.setup"] + Array(repeating: "trial.randomise", count: 6))
            #expect(try lines.allSatisfy { row in
                let detail: String = try row["detail"]
                return !detail.contains("\"sound\"") && !detail.contains("\"counselling\"") && !detail.contains("Sound therapy")
            })

            // Verify: every allocation follows from the seed; a changed one is named.
            #expect(try await trials.verify(studyId: "trial").differences.isEmpty)
            try await store.database.execute("UPDATE allocations SET arm = CASE arm WHEN 'sound' THEN 'counselling' ELSE 'sound' END WHERE sequence = 4")
            let changed = try await trials.verify(studyId: "trial")
            #expect(changed.count == 6 && changed.differences.map(\.sequence) == [4])
            try await store.database.execute("UPDATE allocations SET arm = CASE arm WHEN 'sound' THEN 'counselling' ELSE 'sound' END WHERE sequence = 4")

            // An erased account: the allocation stays without the person; the next one follows on.
            #expect(try await store.deleteAccount(userId: members[0].0, now: now))
            let after = try await store.allocations(studyId: "trial")
            #expect(after.count == 6 && after[0].userId == nil && after[0].pseudonym == nil && after[0].allocation == made[0])
            #expect(try await trials.verify(studyId: "trial").differences.isEmpty)
            _ = try await store.recordConsent(userId: late, studyId: "trial", version: 1, now: now)
            _ = try await store.storeSheets(userId: late, sheets: [ValidatedSheet(sheet: sheet(loudness: 10), studyId: "trial")], receivedAt: now)
            let next = try await trials.randomise(studyId: "trial", pseudonym: "p-late", entered: ["hearing": "aid"])
            #expect(next.sequence == 7 && next.stratum == "loudness=soft|hearing=aid" && next.place == 3)
        }
    }

    @Test("two stores on one database (two server processes) randomising 60 participants at once give every number and every place of a stratum once, as the seed says", arguments: StoreKind.allCases)
    func twoProcessesAtOnce(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let members = try await study(opened.store, members: 60)
            _ = try await service(opened.store).setUp(studyId: "trial", design: Data(Self.design.utf8))
            let second = try await StoreLocation(parsing: opened.location).open(now: now, modules: serverModuleParts)
            do {
                let stores = [opened.store, second]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, member) in members.enumerated() {
                        let trials = service(stores[index % 2])
                        group.addTask { _ = try await trials.randomise(studyId: "trial", pseudonym: member.1, entered: ["hearing": index % 3 == 0 ? "aid" : "none"]) }
                    }
                    try await group.waitForAll()
                }
            } catch {
                await second.close()
                throw error
            }
            await second.close()
            let stored = try await opened.store.allocations(studyId: "trial")
            #expect(stored.map(\.allocation.sequence) == Array(1...60))
            #expect(Set(stored.compactMap(\.userId)) == Set(members.map(\.0)))
            for (stratum, allocations) in Dictionary(grouping: stored.map(\.allocation), by: \.stratum) {
                #expect(allocations.map(\.place).sorted() == Array(1...allocations.count), "\(stratum)")
            }
            #expect(try await service(opened.store).verify(studyId: "trial").differences.isEmpty)
        }
    }
}

/// The commands, run as the real `uniti-server` binary on a SQLite store.
@Suite("uniti-server randomisation and randomise", .timeLimit(.minutes(10)))
struct RandomisationCommandTests {
    @Test("setup, randomise, show, seed and verify: each prints one clear line; a bad design or level is refused in one line and changes nothing; verify fails naming a changed allocation")
    func commands() async throws {
        try await StoreKind.sqlite.with { opened in
            let members = try await TrialStoreTests().study(opened.store, members: 3)
            let folder = URL(fileURLWithPath: opened.location).deletingLastPathComponent()
            let binary = try ServerBinaryTests.binary().path
            func server(_ arguments: [String]) throws -> Program.Result {
                try Program.run(binary, arguments + ["--database", opened.location])
            }
            let design = folder.appendingPathComponent("design.json")
            try Data("{\"arms\": [{\"id\": \"a\", \"label\": \"A\", \"ratio\": 1}], \"factors\": [], \"method\": \"blocks\"}".utf8).write(to: design)
            let refused = try server(["randomisation", "setup", "--study", "trial", "--design", design.path])
            #expect(refused.status != 0 && refused.err.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "Error: the design cannot be used: a trial needs at least two arms", "\(refused.err)")
            #expect(try await opened.store.trial(studyId: "trial") == nil)
            try Data(TrialStoreTests.design.utf8).write(to: design)
            let setUp = try server(["randomisation", "setup", "--study", "trial", "--design", design.path])
            #expect(setUp.status == 0 && setUp.out == "trial: blocks, arms sound (1), counselling (1), factors loudness, hearing; a new seed is kept by the server.\n",
                    "\(setUp.out)\(setUp.err)")

            let badLevel = try server(["randomise", "--study", "trial", "--participant", members[0].1, "--level", "hearing"])
            #expect(badLevel.status != 0 && badLevel.err.contains("--level 'hearing' is not FACTOR=LEVEL, e.g. hearing=aid."), "\(badLevel.err)")
            var arms: [String] = []
            for (index, member) in members.prefix(2).enumerated() {
                let made = try server(["randomise", "--study", "trial", "--participant", member.1, "--level", "hearing=aid"])
                let line = try #require(made.out.firstMatch(of: /^(p-\d+): allocation (\d), stratum ([^ ]+), arm (sound|counselling)\.\n$/), "\(made.out)\(made.err)")
                #expect(line.1 == member.1 && line.2 == "\(index + 1)" && line.3 == (index == 0 ? "loudness=soft|hearing=aid" : "loudness=loud|hearing=aid"))
                arms.append(String(line.4))
            }
            let twice = try server(["randomise", "--study", "trial", "--participant", members[0].1, "--level", "hearing=aid"])
            #expect(twice.status != 0 && twice.err.contains("was randomised already (number 1,"), "\(twice.err)")

            let shown = try server(["randomisation", "show", "--study", "trial", "--allocations"])
            #expect(shown.status == 0 && shown.out.hasPrefix("trial: blocks, block multiples 1, 2 of 2\n"), "\(shown.out)")
            #expect(shown.out.contains(members[0].1) && shown.out.contains(members[1].1) && !shown.out.contains(members[2].1))

            // The statistician's seed file: private, and enough to make every allocation again.
            let seedFile = folder.appendingPathComponent("seed.json")
            let written = try server(["randomisation", "seed", "--study", "trial", "--out", seedFile.path])
            #expect(written.status == 0, "\(written.err)")
            let mode = try FileManager.default.attributesOfItem(atPath: seedFile.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let stored = try #require(try await opened.store.trial(studyId: "trial"))
            #expect(try SeedFile.read(seedFile.path, study: "trial") == stored.seed)
            let verified = try server(["randomisation", "verify", "--study", "trial", "--seed-file", seedFile.path])
            #expect(verified.status == 0 && verified.out == "trial: all 2 allocation(s) made again from the seed agree.\n", "\(verified.out)\(verified.err)")
            try await opened.store.database.execute("UPDATE allocations SET arm = CASE arm WHEN 'sound' THEN 'counselling' ELSE 'sound' END WHERE sequence = 2")
            let differs = try server(["randomisation", "verify", "--study", "trial"])
            let other = arms[1] == "sound" ? "counselling" : "sound"
            #expect(differs.status != 0 && differs.out == "allocation 2: recorded \(other), the seed gives \(arms[1])\n"
                    && differs.err.contains("1 of 2 allocation(s) of trial differ from what the seed gives"), "\(differs.out)\(differs.err)")
            let actions = try await opened.store.rows("SELECT action FROM audit_log WHERE action LIKE 'trial.%' ORDER BY id").map { try $0["action"] as String }
            #expect(actions == ["trial.setup", "trial.randomise", "trial.randomise", "trial.seed"])
        }
    }
}

extension ConsoleFixture {
    /// The study `trial` (module tyt, the daily questionnaire) with this trial design set up.
    func trialStudy(design: String) async throws {
        let administration = StudyAdministration(store: store, actor: .operator, now: clock.now())
        try await administration.create("trial", StudySettings(title: LocalizedText(["en": "Trial"]), access: .public, modules: ["tyt"]))
        _ = try await administration.importQuestionnaire(Data(dailyQuestionnaireJSON().utf8), into: "trial", module: "tyt")
        _ = try await TrialService(administration: administration).setUp(studyId: "trial", design: Data(design.utf8))
    }
}
