import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48, "Blinding and the flow": the CONSORT counts from the database on both stores, the
/// diagram drawn from them, and the arm codes blinded readers see.
@Suite("The trial's CONSORT flow and arm codes", .timeLimit(.minutes(10)))
struct FlowTests {
    let now = TestTime.now
    let day = 86_400.0

    static let design = #"""
        {"arms": [{"id": "sound", "label": "Sound <therapy> & co", "ratio": 1}, {"id": "counselling", "label": "Counselling", "ratio": 1}],
         "factors": [{"id": "loudness", "levels": ["soft", "loud"], "from": {"questionnaire": "daily", "item": "loudness", "cuts": [50]}}],
         "method": "blocks", "blockMultiples": [1],
         "visits": [{"id": "baseline", "label": "Baseline", "day": 0, "window": 2, "questionnaires": ["daily"]},
                    {"id": "week2", "label": "Week 2", "day": 14, "window": 2, "questionnaires": ["daily"]}],
         "primaryVisit": "week2"}
        """#

    /// A daily sheet begun `days` after `now` (local time UTC+1), with loudness 80.
    func answer(_ store: ServerStore, _ userId: Int64, days: Double) async throws {
        let started = OffsetTimestamp(now.addingTimeInterval(days * day), in: TimeZone(secondsFromGMT: 3600)!)
        _ = try await store.storeSheets(userId: userId, sheets: [ValidatedSheet(sheet: sheet(loudness: 80, startedAt: started.text), studyId: "trial")],
                                        receivedAt: now.addingTimeInterval(days * day))
    }

    func user(_ store: ServerStore, _ name: String, _ status: MembershipStatus) async throws -> Int64 {
        let id = try await store.createUser(username: name, email: "\(name)@example.org", passwordHash: "h", language: "en", pseudonym: "p-\(name)", now: now)
        try await store.setMembership(studyId: "trial", userId: id, status: status, now: now)
        return id
    }

    @Test("assessed, excluded by reason, randomised and per arm received, completed, withdrew, lost and in follow-up equal the database's, a day and a month after randomising", arguments: StoreKind.allCases)
    func counts(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            let members = try await TrialStoreTests().study(store, members: 6, answering: false)
            for (id, _) in members { try await answer(store, id, days: -1) }
            let trials = TrialService(administration: StudyAdministration(store: store, actor: .operator, now: now))
            _ = try await trials.setUp(studyId: "trial", design: Data(Self.design.utf8))
            _ = try await user(store, "noconsent", .member)
            _ = try await user(store, "pending", .pending)
            _ = try await user(store, "denied", .denied)
            _ = try await user(store, "gone", .left)
            for (_, pseudonym) in members.prefix(4) { _ = try await trials.randomise(studyId: "trial", pseudonym: pseudonym, entered: [:]) }
            let arms = Dictionary(uniqueKeysWithValues: try await store.allocations(studyId: "trial").map { ($0.pseudonym!, $0.allocation.arm) })

            try await store.setMembership(studyId: "trial", userId: members[1].0, status: .left, now: now.addingTimeInterval(3 * day))
            try await answer(store, members[2].0, days: 1)       // the baseline only

            func expected(_ pseudonyms: [Int], in arm: String) -> Int { pseudonyms.filter { arms[members[$0].1] == arm }.count }
            for (days, completed, lost, following) in [(10.0, [Int](), [Int](), [0, 2, 3]), (30, [0], [2, 3], [])] {
                if days == 30 { try await answer(store, members[0].0, days: 14) }     // week 2 in its window
                let flow = try await trials.flow(studyId: "trial", blinded: false, now: now.addingTimeInterval(days * day))
                #expect(flow.assessed == 10 && flow.randomised == 4 && flow.primaryVisit == "week2")
                #expect(flow.excluded == .init(total: 6, declined: 1, awaitingDecision: 1, leftBeforeRandomisation: 1, noConsent: 1, notYetRandomised: 2))
                #expect(flow.arms.map(\.arm) == ["sound", "counselling"] && flow.arms.map(\.label) == ["Sound <therapy> & co", "Counselling"])
                for row in flow.arms {
                    #expect(row.allocated == arms.values.filter { $0 == row.arm }.count)
                    let received = days == 30 ? [0, 2] : [2]
                    #expect(row.received == expected(received, in: row.arm) && row.notReceived == row.allocated - row.received)
                    #expect(row.completed == expected(completed, in: row.arm) && row.analysed == row.completed, "day \(days): \(row) \(arms)")
                    #expect(row.withdrew == expected([1], in: row.arm) && row.lostToFollowUp == expected(lost, in: row.arm), "day \(days)")
                    #expect(row.inFollowUp == expected(following, in: row.arm) && row.excludedFromAnalysis == (row.withdrew ?? 0) + (row.lostToFollowUp ?? 0))
                }
            }

            // The JSON is the flow; blinded, arms are codes without labels, nothing else changes.
            let flow = try await trials.flow(studyId: "trial", blinded: false, now: now.addingTimeInterval(30 * day))
            #expect(try JSONDecoder().decode(TrialFlow.self, from: Data(flow.json().utf8)) == flow)
            let blinded = try await trials.flow(studyId: "trial", blinded: true, now: now.addingTimeInterval(30 * day))
            let codes = try #require(try await store.trial(studyId: "trial")).seed
            let names = ArmNames(trial: StoredTrial(design: try TrialDesign.read(Data(Self.design.utf8)), seed: codes, createdAt: now), blinded: true)
            #expect(blinded.blinded && blinded.arms.map(\.arm) == ["A", "B"] && blinded.arms.allSatisfy { $0.label == nil })
            #expect(blinded.arms.map(\.allocated) == names.ordered.map { arm in arms.values.filter { $0 == arm.id }.count })
            let coded = try blinded.json()
            #expect(!coded.contains("sound") && !coded.contains("ounselling"))
        }
    }

    @Test("the diagram is well-formed SVG with every count of the flow, labels escaped, in English or German, and blinded without a label")
    func diagram() throws {
        let flow = TrialFlow(study: "uniti", blinded: false, primaryVisit: "week12", assessed: 461 + 120,
                             excluded: .init(total: 120, declined: 80, awaitingDecision: 5, leftBeforeRandomisation: 10, noConsent: 15, notYetRandomised: 10),
                             randomised: 461, arms: (0..<10).map { index in
                                 TrialFlow.Arm(arm: "arm\(index)", label: index == 0 ? "CBT <& hearing aid>" : "Arm \(index)", allocated: 46, received: 40,
                                               notReceived: 6, completed: 38, withdrew: 3, lostToFollowUp: 4, inFollowUp: 1, analysed: 38, excludedFromAnalysis: 7)
                             })
        let svg = ConsortDiagram.svg(flow, language: "en")
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "") at line \(parser.lineNumber), column \(parser.columnNumber)\n\(svg)")
        for line in ["Assessed for eligibility (n = 581)", "Excluded (n = 120)", "Request declined (n = 80)", "Randomised (n = 461)",
                     "CBT &lt;&amp; hearing aid&gt; (arm0)</tspan>", "Allocated (n = 46)", "Completed week12 (n = 38)", "Lost to follow-up (n = 4)",
                     "Analysed (n = 38)", "Excluded from analysis (n = 7)", ">Arm 9 (arm9)</tspan>"] {
            #expect(svg.contains(line), "\(line)")
        }
        #expect(svg.components(separatedBy: "<g id=\"allocated-").count == 11 && !svg.contains("<script"))
        #expect(ConsortDiagram.svg(flow, language: "de").contains("Auf Eignung geprüft (n = 581)"))

        var blinded = flow
        blinded.blinded = true
        blinded.arms = blinded.arms.enumerated().map { index, arm in
            var arm = arm
            (arm.arm, arm.label) = (String(UnicodeScalar(UInt8(65 + index))), nil)
            return arm
        }
        let coded = ConsortDiagram.svg(blinded, language: "en")
        #expect(coded.contains(">A</tspan>") && !coded.contains("CBT") && !coded.contains("arm0"))
    }

    @Test("arm codes are A, B, … dealt by the seed: fixed for a study, the design's order not kept across studies")
    func codes() throws {
        let design = try TrialDesign.read(Data(#"{"arms": [{"id": "a1", "label": "One", "ratio": 1}, {"id": "a2", "label": "Two", "ratio": 1}, {"id": "a3", "label": "Three", "ratio": 2}], "factors": [], "method": "blocks"}"#.utf8))
        var firsts: Set<String> = []
        for index in 0..<60 {
            let seed = Data((0..<32).map { UInt8(($0 * 7 + index * 13) % 256) })
            let names = ArmNames(trial: StoredTrial(design: design, seed: seed, createdAt: now), blinded: true)
            #expect(Set(names.codes.values) == ["A", "B", "C"] && Set(names.codes.keys) == ["a1", "a2", "a3"])
            #expect(ArmNames(trial: StoredTrial(design: design, seed: seed, createdAt: now), blinded: true).codes == names.codes)
            #expect(names.ordered.map { names.id($0.id) } == ["A", "B", "C"] && names.name("a1") == names.codes["a1"])
            firsts.insert(names.ordered[0].id)
        }
        #expect(firsts == ["a1", "a2", "a3"], "every arm is sometimes A")
        let open = ArmNames(trial: StoredTrial(design: design, seed: Data(count: 32), createdAt: now), blinded: false)
        #expect(open.name("a3") == "Three (a3)" && open.id("a3") == "a3" && open.ordered.map(\.id) == ["a1", "a2", "a3"])
    }
}
