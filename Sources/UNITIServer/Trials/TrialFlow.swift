import Foundation
import UNITIProtocol

/// The trial's CONSORT flow (issue 48, "Blinding and the flow"): how many people were assessed,
/// excluded before randomisation (and why), randomised, and per arm allocated, reached by their
/// arm, followed up and analysed. Counted from the database as it is now:
///
/// - **assessed**: everyone who asked to join the study (pending, member, declined or left), the
///   randomised whose account was erased since, and the screenings that found someone not
///   eligible (``ScreeningEntry``; a person who is screened again counts again);
/// - **excluded**, each person once, in this order: the study's screening found them not
///   eligible (with a count per rule not met, ``ScreeningCounts``), their request was declined,
///   is still undecided, they left before randomisation, they have not agreed to the study's
///   current consent, or they are members not randomised yet;
/// - per arm, **allocated**; **received**: answered a sheet of the study after their allocation
///   (their app then had the arm's modules), the others did not;
/// - per arm, over the primary visit (``TrialDesign/primary``), a partition of the allocated:
///   **completed** it (in or outside its window: they are **analysed**), **withdrew** (left the
///   study or had their account erased before completing it), **lost to follow-up** (its
///   window closed without it) or still **in follow-up** (it has not come or is due). Without a
///   primary visit these are not counted (nil).
///
/// Blinded (``ArmNames``), the arms appear by code and without labels, in the codes' order.
struct TrialFlow: Codable, Sendable, Equatable {
    var study: String
    /// The site whose participants alone are counted (nil: the whole study).
    var site: String? = nil
    var blinded: Bool
    var primaryVisit: String?
    var assessed: Int
    var excluded: Excluded
    var randomised: Int
    var arms: [Arm]

    struct Excluded: Codable, Sendable, Equatable {
        var total: Int
        /// Not eligible by the study's screening, and how many did not meet each rule.
        var ineligible: Int = 0
        var ineligibleByRule: [ScreeningCounts.Rule] = []
        var declined: Int
        var awaitingDecision: Int
        var leftBeforeRandomisation: Int
        var noConsent: Int
        var notYetRandomised: Int
    }

    struct Arm: Codable, Sendable, Equatable {
        /// The arm's id, or its code when blinded.
        var arm: String
        /// For unblinded readers only.
        var label: String?
        var allocated: Int
        var received: Int
        var notReceived: Int
        var completed: Int?
        var withdrew: Int?
        var lostToFollowUp: Int?
        var inFollowUp: Int?
        var analysed: Int?
        var excludedFromAnalysis: Int?
    }

    /// The flow as indented JSON with sorted keys and a final line break (`consort --format
    /// json`, the console's download); a count not made (no primary visit) is left out.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// The flow of `participants` (every membership of the study) and the study's allocations;
    /// `sheets` are the starts of the visits' questionnaires by user id.
    static func of(study: StudyRecord, names: ArmNames, participants: [StudyParticipant], allocations: [StoredAllocation],
                   screened: ScreeningCounts? = nil, sheets: [Int64: [(questionnaire: String, started: Date)]], now: Date) -> TrialFlow {
        let design = names.design
        let allocated = Dictionary(allocations.compactMap { made in made.userId.map { ($0, made) } }, uniquingKeysWith: { first, _ in first })
        let people = Dictionary(participants.map { ($0.userId, $0) }, uniquingKeysWith: { first, _ in first })
        var excluded = Excluded(total: screened?.ineligible ?? 0, ineligible: screened?.ineligible ?? 0, ineligibleByRule: screened?.byRule ?? [],
                                declined: 0, awaitingDecision: 0, leftBeforeRandomisation: 0, noConsent: 0, notYetRandomised: 0)
        for person in participants where allocated[person.userId] == nil {
            switch person.status {
            case .denied: excluded.declined += 1
            case .pending: excluded.awaitingDecision += 1
            case .left: excluded.leftBeforeRandomisation += 1
            case .member:
                if let version = study.consentVersion, (person.consentVersion ?? 0) < version { excluded.noConsent += 1 } else { excluded.notYetRandomised += 1 }
            case .none: continue
            }
            excluded.total += 1
        }
        let erased = allocations.filter { $0.userId == nil }.count
        let visits = design.visits ?? [], primary = design.primary
        let primaryIndex = primary.flatMap { primary in visits.firstIndex { $0.id == primary.id } }
        let arms = names.ordered.map { arm -> Arm in
            let members = allocations.filter { $0.allocation.arm == arm.id }
            var row = Arm(arm: names.id(arm.id), label: names.blinded ? nil : arm.label, allocated: members.count, received: 0, notReceived: 0)
            for made in members {
                let person = made.userId.flatMap { people[$0] }
                // Sheet times are whole seconds (as the apps send them); the allocation's is not.
                let allocated = Date(timeIntervalSince1970: made.allocatedAt.timeIntervalSince1970.rounded(.down))
                if let last = person?.lastAnswerAt, last >= allocated { row.received += 1 } else { row.notReceived += 1 }
            }
            if let primaryIndex {
                var completed = 0, withdrew = 0, lost = 0, following = 0
                for made in members {
                    guard let userId = made.userId, let person = people[userId] else { withdrew += 1; continue }
                    let state = VisitStatus.of(visits, randomised: made.allocatedAt, joined: person.joinedAt,
                                               sheets: sheets[userId] ?? [], now: now)[primaryIndex].state
                    switch state {
                    case .inWindow, .outOfWindow: completed += 1
                    case _ where person.status == .left: withdrew += 1
                    case .missed: lost += 1
                    case .upcoming, .due, .unscheduled: following += 1
                    }
                }
                (row.completed, row.withdrew, row.lostToFollowUp, row.inFollowUp) = (completed, withdrew, lost, following)
                (row.analysed, row.excludedFromAnalysis) = (completed, withdrew + lost)
            }
            return row
        }
        return TrialFlow(study: study.id, blinded: names.blinded, primaryVisit: primary?.id,
                         assessed: participants.filter { $0.status != .none }.count + erased + (screened?.ineligible ?? 0),
                         excluded: excluded, randomised: allocations.count, arms: arms)
    }
}
