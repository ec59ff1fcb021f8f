import Foundation
import UNITIProtocol

/// What a line of the audit trail says changed, from what to what: each changed field as
/// `{"from": old, "to": new}` (JSON `null` where there was or is none). A consent is named by its
/// version numbers (the texts are in the consent's versions, `study consent`), a password only
/// by `{"changed": true}`: no hash, and nothing of its length, ever goes into a line.
enum AuditValues {
    static func change(_ from: JSONValue, _ to: JSONValue) -> JSONValue {
        .object(["from": from, "to": to])
    }

    /// The fields of a study that differ between `before` (nil: a study being created, every
    /// field set counts) and `after`, by name: `title`, `description`, `consent` (its version),
    /// `access`, `password`, `participantsMayLeave`, `running`, `starts`, `ends`, `modules`,
    /// `schedules`, `languages` (the modules' switches: ``switchChanges(_:)``).
    static func studyChanges(from before: StudyRecord?, to after: StudyRecord) -> [String: JSONValue] {
        let empty = StudyRecord(id: after.id, title: LocalizedText([:]))
        let old = before ?? empty
        var changes: [String: JSONValue] = [:]
        func field(_ name: String, _ value: (StudyRecord) -> JSONValue) {
            let from = before.map(value) ?? .null, to = value(after)
            if value(old) != to { changes[name] = change(from, to) }
        }
        field("title") { text($0.title) }
        field("description") { $0.description.map(text) ?? .null }
        if old.consent != after.consent {
            changes["consent"] = change(before?.consentVersion.map { .number(Double($0)) } ?? .null,
                                        after.consentVersion.map { .number(Double($0)) } ?? .null)
        }
        field("access") { .string($0.access.rawValue) }
        if old.passwordHash != after.passwordHash { changes["password"] = .object(["changed": .bool(true)]) }
        field("participantsMayLeave") { .bool($0.participantsMayLeave) }
        field("running") { .bool($0.running) }
        field("starts") { $0.startsAt.map { .string(Timestamps.format($0)) } ?? .null }
        field("ends") { $0.endsAt.map { .string(Timestamps.format($0)) } ?? .null }
        field("modules") { .array($0.modules.map { .string($0.rawValue) }) }
        field("schedules") { $0.schedules ?? .null }
        field("languages") { $0.languages.map { .array($0.map { .string($0) }) } ?? .null }
        return changes
    }

    /// The module switches turned on or off, by name (`{"rewards": {"from": false, "to": true}}`).
    static func switchChanges(_ switches: [StudySwitch.Key: Bool]) -> [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: switches.map { key, on in (key.name, change(.bool(!on), .bool(on))) })
    }

    /// The settings a team changes without a new definition file (schedule, whether participants
    /// may change it, completion window, message after saving) that differ, with both values.
    static func settingChanges(_ a: QuestionnaireDefinition, _ b: QuestionnaireDefinition) -> [String: JSONValue] {
        var changes: [String: JSONValue] = [:]
        func setting(_ name: String, _ value: (QuestionnaireDefinition) -> JSONValue) {
            if value(a) != value(b) { changes[name] = change(value(a), value(b)) }
        }
        setting("schedule") { json($0.schedule) }
        setting("scheduleChangeable") { .bool($0.scheduleChangeable) }
        setting("completionWindowMinutes") { $0.completionWindowMinutes.map { .number(Double($0)) } ?? .null }
        setting("lateAnswerMinutes") { $0.lateAnswerMinutes.map { .number(Double($0)) } ?? .null }
        setting("afterSaving") { json($0.afterSaving) }
        return changes
    }

    /// A team member's line: who, and their role before and after (null: none).
    static func member(_ member: StaffMember, role: (from: StudyRole?, to: StudyRole?)) -> [String: JSONValue] {
        ["staff": .number(Double(member.id)), "email": .string(member.email),
         "changes": .object(["role": change(role.from.map { .string($0.rawValue) } ?? .null, role.to.map { .string($0.rawValue) } ?? .null)])]
    }

    static func text(_ text: LocalizedText) -> JSONValue {
        .object(text.values.mapValues { .string($0) })
    }

    /// A value as JSON (null when absent or not encodable).
    static func json<T: Encodable>(_ value: T?) -> JSONValue {
        guard let value, let data = try? JSONCoding.data(value) else { return .null }
        return (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .null
    }
}
