import Foundation
import UNITIProtocol

/// How a randomised study allocates its participants (issue 48, "Randomisation"): its arms with
/// their allocation ratios, the stratification factors with their levels, and the method.
///
/// Read from the JSON a coordinator writes (`uniti-server randomisation setup --design FILE`):
///
///     {"arms": [{"id": "sound", "label": "Sound therapy", "ratio": 1},
///               {"id": "counselling", "label": "Structured counselling", "ratio": 1}],
///      "factors": [{"id": "distress", "levels": ["low", "high"]},
///                  {"id": "site", "levels": ["ulm", "regensburg", "athens", "leuven", "madrid"]}],
///      "method": "blocks", "blockMultiples": [1, 2, 3]}
///
/// `blocks` is permuted blocks with random block sizes within each stratum (a block holds
/// `ratio × multiple` places per arm, the multiple drawn for each block from `blockMultiples`);
/// `minimisation` is Pocock and Simon's, the arm of least imbalance taken with `probability`
/// (0.8 when not given), another at random otherwise. ``TrialDesign/problems`` lists what is
/// wrong with a design, one line each.
struct TrialDesign: Codable, Sendable, Equatable {
    struct Arm: Codable, Sendable, Equatable {
        var id: String
        /// For staff; never shown to participants.
        var label: String
        /// Places in each round of allocation (1:1 is 1 and 1, 2:1 is 2 and 1).
        var ratio: Int
        /// The modules the arm's participants get once randomised, each from and until a day
        /// (day 0 is the day of randomisation); nil: the study's modules, as before.
        var modules: [ArmModule]?
        /// The questionnaires they are offered; nil: all of the study's.
        var questionnaires: [String]?
        /// What they are told to do, in the study's languages: never the arm's name.
        var notice: LocalizedText?

        /// The modules in force `day` days after randomisation; nil when the arm keeps the study's.
        func modules(onDay day: Int) -> [String]? {
            modules.map { $0.filter { ($0.fromDay ?? 0) <= day && day <= ($0.toDay ?? Int.max) }.map(\.id) }
        }
    }

    /// A module of an arm, from `fromDay` (default 0) to `toDay` (included; default: no end).
    struct ArmModule: Codable, Sendable, Equatable {
        var id: String
        var fromDay: Int?
        var toDay: Int?
    }

    struct Factor: Codable, Sendable, Equatable {
        var id: String
        var levels: [String]
        /// Where the level comes from: the participant's own newest answer to a questionnaire's
        /// item, in bands (`cuts`: below the first cut the first level, from it the second, …).
        /// Without it the level is entered by the site's staff when they randomise (an
        /// assessment made at the clinic, such as a hearing-aid indication from the audiogram).
        var from: Source?
        /// `"site": true`: the level is the participant's study site (its id; the levels are the
        /// study's site ids), so a multi-centre trial stratifies by centre with nothing entered.
        var site: Bool? = nil
        /// A measure a module computes from the participant's own data, in bands:
        /// `{"name": "tn.better-ear-pta", "cuts": [25]}` (``StratificationMeasure``).
        var measure: Measure? = nil

        /// Whether the level is the participant's site.
        var fromSite: Bool { site == true }
    }

    /// A module's measure of the participant and the cuts between its bands, as ``Source``'s.
    struct Measure: Codable, Sendable, Equatable {
        var name: String
        var cuts: [Double]

        func band(_ value: Double) -> Int { cuts.filter { value >= $0 }.count }
    }

    /// A numeric item of the study's questionnaire and the cuts between its bands:
    /// `{"questionnaire": "thi", "item": "total", "cuts": [38]}` gives `< 38` and `≥ 38`.
    struct Source: Codable, Sendable, Equatable {
        var questionnaire: String
        var item: String
        var cuts: [Double]

        /// The band's index of `value`.
        func band(_ value: Double) -> Int { cuts.filter { value >= $0 }.count }
    }

    enum Method: String, Codable, Sendable {
        case blocks
        case minimisation
    }

    var arms: [Arm]
    var factors: [Factor]
    var method: Method
    /// Blocks: the multiples of one round a block may hold (random block sizes).
    var blockMultiples: [Int]?
    /// Minimisation: the probability of taking the arm of least imbalance.
    var probability: Double?
    /// The visits, each a day after randomisation (or joining) with a window (``TrialVisit``).
    var visits: [TrialVisit]?
    /// The visit of the primary outcome (the UNITI trial's week 12), which the CONSORT flow
    /// counts as completed, missed (lost to follow-up) or still to come; nil: the last visit
    /// counted from randomisation.
    var primaryVisit: String?

    /// The block multiples in force (blocks): as given, or 1, 2 and 3.
    var multiples: [Int] { blockMultiples ?? [1, 2, 3] }
    /// The minimisation's probability in force: as given, or 0.8.
    var preference: Double { probability ?? 0.8 }
    /// The visit the CONSORT flow follows (``primaryVisit``); nil when the design has none.
    var primary: TrialVisit? {
        let visits = visits ?? []
        if let primaryVisit { return visits.first { $0.id == primaryVisit } }
        return visits.filter { $0.anchor == .randomisation }.max { $0.day < $1.day }
    }

    /// The places of one round: the ratios added up.
    var round: Int { arms.reduce(0) { $0 + $1.ratio } }

    /// What is wrong with the design, a line each (empty: it can be used).
    var problems: [String] {
        var problems: [String] = []
        let identifier = /[a-z0-9][a-z0-9_-]{0,31}/
        if arms.count < 2 { problems.append("a trial needs at least two arms") }
        if arms.count > 26 { problems.append("at most 26 arms (they are coded A to Z in blinded exports)") }
        for arm in arms {
            if (try? identifier.wholeMatch(in: arm.id)) == nil {
                problems.append("arm id \"\(arm.id)\": lower-case letters, digits, - and _, up to 32")
            }
            if !(1...10).contains(arm.ratio) { problems.append("arm \(arm.id): the ratio must be 1 to 10, not \(arm.ratio)") }
            if arm.label.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("arm \(arm.id) has no label") }
            for module in arm.modules ?? [] {
                if ModuleCatalog.module(named: module.id) == nil {
                    problems.append("arm \(arm.id): no module \(module.id) (known: \(StudyRules.knownModuleList))")
                }
                let from = module.fromDay ?? 0
                if from < 0 || from > 3650 || (module.toDay.map { $0 < from || $0 > 3650 } ?? false) {
                    problems.append("arm \(arm.id): the days of \(module.id) must run forward within 0 to 3650")
                }
            }
        }
        if Set(arms.map(\.id)).count != arms.count { problems.append("two arms have the same id") }
        for factor in factors {
            if (try? identifier.wholeMatch(in: factor.id)) == nil {
                problems.append("factor id \"\(factor.id)\": lower-case letters, digits, - and _, up to 32")
            }
            if factor.levels.count < 2 { problems.append("factor \(factor.id) needs at least two levels") }
            if Set(factor.levels).count != factor.levels.count { problems.append("factor \(factor.id) has a level twice") }
            if factor.levels.contains(where: { $0.isEmpty || $0.contains("|") || $0.contains("=") }) {
                problems.append("factor \(factor.id): a level may not be empty or hold | or =")
            }
            if [factor.from != nil, factor.fromSite, factor.measure != nil].count(where: { $0 }) > 1 {
                problems.append("factor \(factor.id) reads one of an answer, the site or a measure, not several")
            }
            if let measure = factor.measure {
                if measure.cuts.count != factor.levels.count - 1 {
                    problems.append("factor \(factor.id): \(factor.levels.count) levels need \(factor.levels.count - 1) cuts, not \(measure.cuts.count)")
                } else if zip(measure.cuts, measure.cuts.dropFirst()).contains(where: { $0 >= $1 }) {
                    problems.append("factor \(factor.id): the cuts must rise")
                }
            }
            if let source = factor.from {
                if source.cuts.count != factor.levels.count - 1 {
                    problems.append("factor \(factor.id): \(factor.levels.count) levels need \(factor.levels.count - 1) cuts, not \(source.cuts.count)")
                }
                if source.cuts != source.cuts.sorted() || Set(source.cuts).count != source.cuts.count {
                    problems.append("factor \(factor.id): the cuts must rise")
                }
            }
        }
        if Set(factors.map(\.id)).count != factors.count { problems.append("two factors have the same id") }
        let visits = visits ?? []
        for visit in visits {
            if (try? identifier.wholeMatch(in: visit.id)) == nil {
                problems.append("visit id \"\(visit.id)\": lower-case letters, digits, - and _, up to 32")
            }
            if !(-365...3650).contains(visit.day) { problems.append("visit \(visit.id): the day must be -365 to 3650, not \(visit.day)") }
            if !(0...60).contains(visit.window) { problems.append("visit \(visit.id): the window must be 0 to 60 days, not \(visit.window)") }
            if visit.questionnaires.isEmpty { problems.append("visit \(visit.id) names no questionnaire") }
        }
        if Set(visits.map(\.id)).count != visits.count { problems.append("two visits have the same id") }
        if let primaryVisit, !visits.contains(where: { $0.id == primaryVisit }) {
            problems.append("primaryVisit \(primaryVisit) is none of the visits")
        }
        for anchor in TrialVisit.Anchor.allCases {
            let ordered = visits.filter { $0.anchor == anchor }.sorted { $0.day < $1.day }
            for (earlier, later) in zip(ordered, ordered.dropFirst()) where earlier.day + earlier.window >= later.day - later.window {
                problems.append("the windows of visits \(earlier.id) and \(later.id) overlap")
            }
        }
        switch method {
        case .blocks:
            if probability != nil { problems.append("probability belongs to minimisation, not to blocks") }
            if multiples.isEmpty || multiples.contains(where: { !(1...10).contains($0) }) || Set(multiples).count != multiples.count {
                problems.append("blockMultiples: one to ten different whole numbers from 1 to 10")
            }
        case .minimisation:
            if blockMultiples != nil { problems.append("blockMultiples belongs to blocks, not to minimisation") }
            if factors.isEmpty { problems.append("minimisation needs at least one factor") }
            if !(preference > 0.5 && preference <= 1) { problems.append("probability must be above 0.5 and at most 1, not \(preference)") }
        }
        return problems
    }

    /// The design from the coordinator's JSON; throws one line naming every problem.
    static func read(_ data: Data) throws -> TrialDesign {
        let design: TrialDesign
        do {
            design = try JSONDecoder().decode(TrialDesign.self, from: data)
        } catch let error as DecodingError {
            throw TrialError("the design is not JSON of arms, factors and a method: \(APIRequestDecoder.describe(error))")
        }
        let problems = design.problems
        guard problems.isEmpty else { throw TrialError("the design cannot be used: " + problems.joined(separator: "; ")) }
        return design
    }

    /// The participant's levels, one per factor in the design's order, checked; throws one line
    /// naming what is missing or unknown.
    func levels(_ given: [String: String]) throws -> [String] {
        var problems: [String] = []
        let levels = factors.map { factor -> String in
            guard let level = given[factor.id] else {
                problems.append("\(factor.id) is missing")
                return ""
            }
            if !factor.levels.contains(level) {
                problems.append("\(factor.id) is \"\(level)\", not one of \(factor.levels.joined(separator: ", "))")
            }
            return level
        }
        for name in given.keys.sorted() where !factors.contains(where: { $0.id == name }) {
            problems.append("the design has no factor \(name)")
        }
        guard problems.isEmpty else { throw TrialError("the stratification data are not complete: " + problems.joined(separator: "; ")) }
        return levels
    }

    /// The stratum of these levels (design order): `distress=high|site=ulm`; `all` without factors.
    func stratum(_ levels: [String]) -> String {
        factors.isEmpty ? "all" : zip(factors, levels).map { "\($0.id)=\($1)" }.joined(separator: "|")
    }
}

/// A randomisation that cannot be made, in one line.
struct TrialError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
