import Foundation
import GRDB

/// Since when each reminder rule has held on this device, so that a reminder is due only if its
/// rule already held at its time: joining a study at 10:07 must not announce a 09:52 reminder of
/// that study, nor must switching reminders on, enabling a module or moving a window announce
/// one from before the change (the planner works from today's rules, and anything up to an hour
/// late counts as due).
///
/// A rule is known by its module, its id and what decides its times (its questionnaire and
/// cadence: the windows, counts, fixed times and seed), not by its wording, tone or study dates,
/// which change without the person doing anything. The first time a program sees a rule (or
/// sees it changed) it holds from that moment; a rule no longer there is forgotten, so it holds
/// anew from the moment it comes back. Programs see the rules whenever they plan for delivery
/// (``ReminderService/pending(at:horizon:)``) and after every command that wrote something
/// (the shell), so a rule switched off and on again between two plans is seen both times.
///
/// Rows live in `core_reminder_rules`; a program only adds and forgets rows of the modules it
/// has (``ModuleReminderSource`` lists them), so a standalone program never forgets the other
/// modules' rules. Reading writes nothing; seeing writes only when something changed.
public struct ReminderRuleHistory: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// A rule as this history tells rules apart.
    struct Key: Hashable {
        let moduleID: String
        let ruleID: String
    }

    /// What decides a rule's times, as sorted JSON: when it changes, the rule holds anew.
    static func fingerprint(_ rule: ReminderRule) throws -> String {
        struct Times: Encodable {
            let questionnaireID: String?
            let cadence: ReminderCadence
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(Times(questionnaireID: rule.questionnaireID, cadence: rule.cadence)),
                      as: UTF8.self)
    }

    static func fingerprints(_ sources: [ModuleReminderSource]) throws -> [Key: String] {
        var result: [Key: String] = [:]
        for source in sources {
            for rule in source.source.rules {
                result[Key(moduleID: source.module.id.rawValue, ruleID: rule.id)] = try fingerprint(rule)
            }
        }
        return result
    }

    /// Notes the rules of `sources` as holding at `now`: new and changed rules hold from `now`,
    /// rules of these modules that are gone are forgotten. Returns since when each rule holds.
    @discardableResult
    func see(_ sources: [ModuleReminderSource], at now: Date) throws -> [Key: Date] {
        let current = try Self.fingerprints(sources)
        let modules = Set(sources.map(\.module.id.rawValue))
        var stored = try rows(of: modules)
        let changed = current.filter { stored[$0.key]?.fingerprint != $0.value }
        let gone = stored.keys.filter { current[$0] == nil }
        if !changed.isEmpty || !gone.isEmpty, database.readOnlyBecause == nil {
            try database.writer.write { db in
                for (key, fingerprint) in changed {
                    // Another program may have seen the same rule a moment earlier: its time stands.
                    try db.execute(sql: """
                        INSERT INTO core_reminder_rules(moduleID, ruleID, fingerprint, since) VALUES (?, ?, ?, ?)
                        ON CONFLICT(moduleID, ruleID) DO UPDATE SET fingerprint = excluded.fingerprint, since = excluded.since
                        WHERE core_reminder_rules.fingerprint <> excluded.fingerprint
                        """, arguments: [key.moduleID, key.ruleID, fingerprint, now])
                }
                for key in gone {
                    try db.execute(sql: "DELETE FROM core_reminder_rules WHERE moduleID = ? AND ruleID = ?",
                                   arguments: [key.moduleID, key.ruleID])
                }
            }
            stored = try rows(of: modules)
        }
        return Self.holding(stored, current)
    }

    /// Since when each rule of `sources` holds, as recorded (reading only); a rule not seen yet,
    /// or changed since it was seen, is missing: it holds from now on.
    func since(_ sources: [ModuleReminderSource]) throws -> [Key: Date] {
        let current = try Self.fingerprints(sources)
        guard !current.isEmpty else { return [:] }
        return Self.holding(try rows(of: Set(sources.map(\.module.id.rawValue))), current)
    }

    private func rows(of modules: Set<String>) throws -> [Key: (fingerprint: String, since: Date)] {
        guard !modules.isEmpty else { return [:] }
        return try database.writer.read { db in
            let marks = Array(repeating: "?", count: modules.count).joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: """
                SELECT moduleID, ruleID, fingerprint, since FROM core_reminder_rules WHERE moduleID IN (\(marks))
                """, arguments: StatementArguments(Array(modules)))
            var result: [Key: (fingerprint: String, since: Date)] = [:]
            for row in rows {
                result[Key(moduleID: row["moduleID"], ruleID: row["ruleID"])] = (row["fingerprint"], row["since"])
            }
            return result
        }
    }

    /// The recorded times of the rules that still read as recorded.
    private static func holding(_ stored: [Key: (fingerprint: String, since: Date)], _ current: [Key: String]) -> [Key: Date] {
        stored.filter { current[$0.key] == $0.value.fingerprint }.mapValues(\.since)
    }

    /// The migration of the table.
    static let migrations = MigrationSet(owner: "core", steps: [
        ModuleMigration("v1-reminder-rules") { db in
            try db.create(table: "core_reminder_rules") { t in
                t.column("moduleID", .text).notNull()
                t.column("ruleID", .text).notNull()
                t.column("fingerprint", .text).notNull()
                t.column("since", .datetime).notNull()
                t.primaryKey(["moduleID", "ruleID"])
            }
        },
    ])
}
