import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tyh rewards [--json]` (thesis FR11, beyond what it built): points, level, streak and badges
/// per study that turns rewards on, as the study server computed them from the sheets it
/// received (`GET /api/v1/rewards`). The last known state is kept and shown offline, marked
/// with its time; the device never computes or raises them itself.
struct RewardsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "rewards", abstract: L("tyh.rewards.abstract"))
    }

    @OptionGroup var output: JSONOutput

    init() {}

    static let cacheKey = "rewards.last"

    /// The last rewards the server sent, with when.
    struct Cached: Codable {
        var fetchedAt: String
        var list: RewardList
    }

    static func cached(_ context: ModuleContext) -> Cached? {
        guard let text = try? context.moduleSetting(cacheKey) else { return nil }
        return try? JSONDecoder().decode(Cached.self, from: Data(text.utf8))
    }

    /// Asks the server; keeps and returns the answer. Throws one line when it cannot be asked.
    static func fetch(_ context: ModuleContext) throws -> Cached {
        guard try context.sessions.current() != nil else { throw UNITIError(L("tyh.rewards.notLoggedIn")) }
        do {
            let list: RewardList = try context.apiClient().send("GET", "rewards")
            let cached = Cached(fetchedAt: OffsetTimestamp(context.clock.now, in: context.clock.timeZone).text, list: list)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try? context.setModuleSetting(cacheKey, to: String(decoding: try encoder.encode(cached), as: UTF8.self))
            return cached
        } catch let error as APIError {
            throw UNITIError(error.message)
        }
    }

    func run(in context: ModuleContext) throws {
        var notice: String?
        var rewards: Cached?
        do {
            rewards = try Self.fetch(context)
        } catch let error as UNITIError {
            rewards = Self.cached(context)
            notice = rewards.map { L("tyh.rewards.offline", ["time": OffsetTimestamp.minuteText($0.fetchedAt),
                                                             "reason": error.message]) } ?? error.message
        }
        if output.isRequested(in: context) {
            try context.console.json(rewards?.list ?? RewardList(studies: []))
            return
        }
        if let notice { context.console.error(notice) }
        guard let rewards else { return }
        guard !rewards.list.studies.isEmpty else {
            context.console.line(L("tyh.rewards.none"))
            return
        }
        let today = LocalDate(context.clock.now, in: context.clock.timeZone)
        let titles = Dictionary((try? context.studies.joinedStudies())?.map { ($0.id, $0.title) } ?? [], uniquingKeysWith: { a, _ in a })
        for status in rewards.list.studies {
            let title = titles[status.studyId].map { QuestionnaireText(localizer: context.localizer).text($0) } ?? status.studyId
            context.console.line("\(title):")
            for line in Self.describe(status, today: today) { context.console.line("  " + line) }
        }
    }

    /// The lines of one study's rewards.
    static func describe(_ status: RewardStatus, today: LocalDate) -> [String] {
        var lines = [L("tyh.rewards.points", count: status.points, ["level": "\(status.level)"])]
        if let next = status.nextLevelAt {
            lines[0] += " " + L("tyh.rewards.nextLevel", ["points": "\(next - status.points)"])
        }
        lines.append(L("tyh.rewards.completed", count: status.completed, ["onTime": "\(status.onTime)"]))
        let alive = status.lastDay.flatMap { try? LocalDate(parsing: $0) }.map { today.dayNumber - $0.dayNumber <= 1 } ?? false
        let longest = ["longest": "\(status.longestStreak)"]
        lines.append(alive ? L("tyh.rewards.streak", count: status.currentStreak, longest) : L("tyh.rewards.streakOver", longest))
        if !status.badges.isEmpty {
            lines.append(L("tyh.rewards.badges", ["badges": status.badges.map { badgeName($0.id) }.joined(separator: ", ")]))
        }
        return lines
    }

    /// A badge's name in the current language.
    static func badgeName(_ id: String) -> String {
        switch id {
        case "first-sheet": return L("tyh.badge.firstSheet")
        case "sheets-10": return L("tyh.badge.sheets", count: 10)
        case "sheets-50": return L("tyh.badge.sheets", count: 50)
        case "sheets-100": return L("tyh.badge.sheets", count: 100)
        case "streak-3": return L("tyh.badge.streak", count: 3)
        case "streak-7": return L("tyh.badge.streak", count: 7)
        case "streak-30": return L("tyh.badge.streak", count: 30)
        case "on-time-10": return L("tyh.badge.onTime", ["count": "10"])
        default: return id
        }
    }

    /// After a sheet: sync it now and show in one line what it earned ("+15 points (on time) ·
    /// 4-day streak"), compared with the last known state. Offline, one line says the rewards
    /// are counted when the sheet reaches the server.
    static func afterSheet(_ context: ModuleContext) {
        guard (try? context.sessions.current()) ?? nil != nil else { return }
        let before = cached(context)
        guard let report = context.syncNow(), report.stoppedBecause == nil, report.sheetsDelivered > 0,
              let after = try? fetch(context) else {
            context.console.line(L("tyh.rewards.later"))
            return
        }
        for status in after.list.studies {
            let previous = before?.list.studies.first { $0.studyId == status.studyId }
            let gained = status.points - (previous?.points ?? 0)
            let onTime = status.onTime > (previous?.onTime ?? 0)
            var line = L(onTime ? "tyh.rewards.gainedOnTime" : "tyh.rewards.gained", count: gained)
            line += " · " + L("tyh.rewards.streakShort", count: status.currentStreak)
            if status.level > (previous?.level ?? 1) { line += " · " + L("tyh.rewards.levelUp", ["level": "\(status.level)"]) }
            let newBadges = status.badges.filter { badge in !(previous?.badges.contains { $0.id == badge.id } ?? false) }
            if !newBadges.isEmpty { line += " · " + newBadges.map { badgeName($0.id) }.joined(separator: ", ") }
            context.console.line(line)
        }
    }
}
