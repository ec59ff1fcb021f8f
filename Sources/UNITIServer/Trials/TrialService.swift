import Foundation
import UNITIProtocol

/// What a study team does with a trial (issue 48): set up its design, randomise a participant
/// (an explicit act, allowed only for a consenting member whose stratification data are
/// complete), and make every allocation again from the seed. The command line uses it now; the
/// console's pages will.
struct TrialService: Sendable {
    let administration: StudyAdministration
    var store: ServerStore { administration.store }

    /// Checks the design (and that each factor's questionnaire is the study's) and stores it with
    /// a new secret seed; throws one line naming every problem.
    func setUp(studyId: String, design data: Data) async throws -> TrialDesign {
        let study = try await administration.existingStudy(studyId)
        let design = try TrialDesign.read(data)
        let questionnaires = Set(try await store.questionnaireLinks(studyId: study.id).map(\.questionnaireId))
        let sites = Set(try await store.sites(studyId: study.id).map(\.id))
        let measures = store.modules.stratificationMeasures.map(\.name)
        var unknown: [String] = []
        for factor in design.factors {
            if let source = factor.from, !questionnaires.contains(source.questionnaire) {
                unknown.append("factor \(factor.id) reads \(source.questionnaire), which \(study.id) does not have")
            }
            if let measure = factor.measure, !measures.contains(measure.name) {
                unknown.append("factor \(factor.id) reads the measure \(measure.name), which no installed module computes (known: \(measures.joined(separator: ", ")))")
            }
            if factor.fromSite {
                for level in factor.levels where !sites.contains(level) {
                    unknown.append("factor \(factor.id): \(study.id) has no site \(level) (add it with 'sites add' first)")
                }
            }
        }
        for arm in design.arms {
            for id in arm.questionnaires ?? [] where !questionnaires.contains(id) { unknown.append("arm \(arm.id) offers \(id), which \(study.id) does not have") }
        }
        for visit in design.visits ?? [] {
            for id in visit.questionnaires where !questionnaires.contains(id) { unknown.append("visit \(visit.id) asks for \(id), which \(study.id) does not have") }
        }
        guard unknown.isEmpty else { throw TrialError("the design cannot be used: " + unknown.joined(separator: "; ")) }
        try await store.setTrial(studyId: study.id, design: design, seed: Randomiser.newSeed(), actor: administration.actor, now: administration.now)
        return design
    }

    /// The study's trial; throws when there is no such study or it is not randomised.
    func trial(studyId: String) async throws -> StoredTrial {
        let study = try await administration.existingStudy(studyId)
        guard let trial = try await store.trial(studyId: study.id) else {
            throw TrialError("\(study.id) is not a randomised study; set it up with 'randomisation setup'")
        }
        return trial
    }

    /// Where a participant stands before randomising: the levels known (read from their answers,
    /// or entered by staff) and what is still missing.
    struct Readiness: Sendable {
        var participant: StudyParticipant
        var levels: [String: String]
        var missing: [Missing]
    }

    /// One thing that stands in the way of randomising; ``description`` is the command line's
    /// words, the console words each kind in the member's language.
    enum Missing: Sendable, Equatable, CustomStringConvertible {
        /// The current consent version is not agreed to.
        case consent(version: Int)
        /// A factor read from answers has no answer yet.
        case answer(factor: String, questionnaire: String, item: String)
        /// A factor entered by staff is not entered.
        case entry(factor: String, levels: [String])
        /// A factor read from the site: the participant belongs to no site yet.
        case site(factor: String)
        /// A factor read from a module's measure: it is not known yet (e.g. no audiogram).
        case measure(factor: String, name: String)

        var description: String {
            switch self {
            case .consent(let version): "consent: has not agreed to version \(version)"
            case .answer(let factor, let questionnaire, let item): "\(factor): no answer to \(questionnaire) (\(item)) yet"
            case .entry(let factor, let levels): "\(factor): to be entered (\(levels.joined(separator: ", ")))"
            case .site(let factor): "\(factor): belongs to no site yet"
            case .measure(let factor, let name): "\(factor): \(name) is not known yet"
            }
        }
    }

    func readiness(studyId: String, pseudonym: String, entered: [String: String]) async throws -> (TrialDesign, Readiness) {
        let study = try await administration.existingStudy(studyId)
        let trial = try await trial(studyId: study.id)
        guard let participant = try await store.studyParticipants(studyId: study.id, pseudonym: pseudonym).first,
              participant.status == .member else {
            throw TrialError("\(pseudonym.prefix(64)) is not a member of \(study.id)")
        }
        var missing: [Missing] = []
        if let version = study.consentVersion, (participant.consentVersion ?? 0) < version {
            missing.append(.consent(version: version))
        }
        var levels: [String: String] = [:]
        for factor in trial.design.factors {
            if let measure = factor.measure {
                if entered[factor.id] != nil { throw TrialError("\(factor.id) is computed from \(measure.name); it is not entered") }
                let computed = store.modules.stratificationMeasures.first { $0.name == measure.name }
                if let value = try await computed?.value(store, participant.userId) {
                    levels[factor.id] = factor.levels[measure.band(value)]
                } else {
                    missing.append(.measure(factor: factor.id, name: measure.name))
                }
            } else if factor.fromSite {
                if entered[factor.id] != nil { throw TrialError("\(factor.id) is the participant's site; it is not entered") }
                if let site = participant.site {
                    levels[factor.id] = site
                } else {
                    missing.append(.site(factor: factor.id))
                }
            } else if let source = factor.from {
                if entered[factor.id] != nil {
                    throw TrialError("\(factor.id) is read from the answers to \(source.questionnaire) (\(source.item)); it is not entered")
                }
                if let value = try await store.newestNumber(userId: participant.userId, studyId: study.id,
                                                            questionnaire: source.questionnaire, item: source.item) {
                    levels[factor.id] = factor.levels[source.band(value)]
                } else {
                    missing.append(.answer(factor: factor.id, questionnaire: source.questionnaire, item: source.item))
                }
            } else if let level = entered[factor.id] {
                levels[factor.id] = level
            } else {
                missing.append(.entry(factor: factor.id, levels: factor.levels))
            }
        }
        for name in entered.keys.sorted() where !trial.design.factors.contains(where: { $0.id == name }) {
            throw TrialError("the design has no factor \(name)")
        }
        return (trial.design, Readiness(participant: participant, levels: levels, missing: missing))
    }

    /// Randomises the participant; throws one line naming everything that stands in the way.
    func randomise(studyId: String, pseudonym: String, entered: [String: String]) async throws -> Randomiser.Allocation {
        let (design, readiness) = try await readiness(studyId: studyId, pseudonym: pseudonym, entered: entered)
        guard readiness.missing.isEmpty else {
            throw TrialError("\(pseudonym) cannot be randomised yet: " + readiness.missing.map(\.description).joined(separator: "; "))
        }
        let levels = try design.levels(readiness.levels)
        return try await store.randomise(studyId: studyId, userId: readiness.participant.userId, pseudonym: pseudonym, levels: levels,
                                         actor: administration.actor, now: administration.now)
    }

    /// One participant's visits, and their arm (nil: not randomised).
    struct ParticipantVisits: Sendable {
        var pseudonym: String
        var arm: String?
        var visits: [VisitStatus]
        /// Their study site (nil: none).
        var site: String? = nil
    }

    /// The visits of the study's members and randomised participants, by pseudonym; empty when
    /// the design has no visits. With `participant` (a participant's page), that person's only,
    /// from their own allocation and sheets; with `site`, that site's participants only (`visits --site`).
    func visits(studyId: String, participant: StudyParticipant? = nil, site: String? = nil, now: Date) async throws -> [ParticipantVisits] {
        // A site is checked as the other reports check it (`unknown_site`).
        if let site { _ = try await StudySites(administration: administration).site(site, studyId: studyId) }
        let trial = try await trial(studyId: studyId)
        guard let visits = trial.design.visits, !visits.isEmpty else { return [] }
        let made = if let participant {
            try await store.allocation(studyId: studyId, userId: participant.userId).map { [$0] } ?? []
        } else {
            try await store.allocations(studyId: studyId)
        }
        let allocations = Dictionary(made.compactMap { made in made.userId.map { ($0, made) } }, uniquingKeysWith: { first, _ in first })
        let sheets = try await store.sheetStarts(studyId: studyId, questionnaires: Set(visits.flatMap(\.questionnaires)).sorted(),
                                                 userId: participant?.userId)
        let people = if let participant { [participant] } else { try await store.studyParticipants(studyId: studyId) }
        return people
            .filter { ($0.status == .member || allocations[$0.userId] != nil) && (site == nil || $0.site == site) }
            .map { person in
                let made = allocations[person.userId]
                return ParticipantVisits(pseudonym: person.pseudonym, arm: made?.allocation.arm,
                                         visits: VisitStatus.of(visits, randomised: made?.allocatedAt, joined: person.joinedAt,
                                                                sheets: sheets[person.userId] ?? [], now: now), site: person.site)
            }
    }

    /// Every allocation made again from the seed (the stored one, or `seed` as a statistician
    /// holds it): how many there are and those that differ.
    func verify(studyId: String, seed: Data? = nil) async throws -> (count: Int, differences: [(sequence: Int, recorded: String, computed: String)]) {
        let trial = try await trial(studyId: studyId)
        let allocations = try await store.allocations(studyId: studyId).map(\.allocation)
        let differences = try Randomiser(design: trial.design, seed: seed ?? trial.seed).verify(allocations)
        return (allocations.count, differences)
    }

    /// The study's CONSORT flow now (``TrialFlow``), arms by code when `blinded`; with `site`,
    /// of that site's participants only (an erased account's allocation, whose site is gone with
    /// it, counts in the whole study's flow alone).
    func flow(studyId: String, blinded: Bool, site: String? = nil, now: Date) async throws -> TrialFlow {
        try await flows(studyId: studyId, blinded: blinded, sites: [site], now: now)[0]
    }

    /// The flows of several sites (nil: the whole study), in their order, from one reading of
    /// the study's participants, allocations, screenings and visit sheets.
    func flows(studyId: String, blinded: Bool, sites: [String?], now: Date) async throws -> [TrialFlow] {
        let study = try await administration.existingStudy(studyId)
        let trial = try await trial(studyId: study.id)
        let known = Set(try await store.sites(studyId: study.id).map(\.id))
        if let unknown = sites.compactMap({ $0 }).first(where: { !known.contains($0) }) {
            _ = try await StudySites(administration: administration).site(unknown, studyId: study.id)
        }
        let visits = trial.design.visits ?? []
        let sheets = visits.isEmpty ? [:]
            : try await store.sheetStarts(studyId: study.id, questionnaires: Set(visits.flatMap(\.questionnaires)).sorted())
        let everyone = try await store.studyParticipants(studyId: study.id)
        let allocations = try await store.allocations(studyId: study.id)
        let screening = try await store.screening(studyId: study.id)
        let screenings = try await store.screenings(studyId: study.id)
        return sites.map { site in
            let participants = everyone.filter { site == nil || $0.site == site }
            let people = Set(participants.map(\.userId))
            let screened = screening == nil && screenings.isEmpty ? nil
                : ScreeningCounts(screenings.filter { site == nil || $0.site == site }, rules: screening?.rules.map(\.id) ?? [])
            var flow = TrialFlow.of(study: study, names: ArmNames(trial: trial, blinded: blinded), participants: participants,
                                    allocations: allocations.filter { made in site == nil || made.userId.map(people.contains) == true },
                                    screened: screened, sheets: sheets, now: now)
            flow.site = site
            return flow
        }
    }

    /// The allocation list as CSV, one line per allocation in the order made (the erased without
    /// a pseudonym), arms by code when `blinded`; written to the audit trail as an export.
    func allocationList(studyId: String, blinded: Bool) async throws -> String {
        let trial = try await trial(studyId: studyId)
        let names = ArmNames(trial: trial, blinded: blinded)
        let made = try await store.allocations(studyId: studyId)
        let sites = try await store.memberSites(studyId: studyId)
        // The site last (after the design's factors, however many): scripts that read the
        // earlier columns by position keep working.
        var text = CSV.line(["sequence", "participant", "stratum", "arm", "allocated_utc"] + trial.design.factors.map(\.id) + ["site"])
        for allocation in made {
            text += CSV.line([String(allocation.allocation.sequence), allocation.pseudonym ?? "", allocation.allocation.stratum,
                              names.id(allocation.allocation.arm), Timestamps.format(allocation.allocatedAt)] + allocation.allocation.levels
                             + [allocation.userId.flatMap { sites[$0] } ?? ""])
        }
        try await store.appendAudit(administration.actor, studyId: studyId, action: "export.allocations",
                                    detail: .object(["rows": .number(Double(made.count)), "blinded": .bool(blinded)]), now: administration.now)
        return text
    }

    /// Makes a member of the study's team blind to allocation, or unblinds them, with the audit
    /// line (``ServerStore/setBlinded(_:member:studyId:actor:now:)``); the console and the command
    /// line both come here. Throws when the address is no member of the study's team; `changed`
    /// is false when they were so already.
    func setBlinded(_ blinded: Bool, email: String, studyId: String) async throws -> (member: StaffMember, changed: Bool) {
        let study = try await administration.existingStudy(studyId)
        guard let member = try await store.studyTeam(studyId: study.id).first(where: { $0.member.email.lowercased() == email.lowercased() })?.member else {
            throw TrialError("'\(email.prefix(254))' is not on the team of \(study.id)")
        }
        let changed = try await store.setBlinded(blinded, member: member, studyId: study.id, actor: administration.actor, now: administration.now)
        return (member, changed)
    }
}
