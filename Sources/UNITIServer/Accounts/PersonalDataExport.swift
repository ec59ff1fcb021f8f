import Foundation
import UNITIProtocol

/// The download of everything stored about one person (GDPR-style access), as one JSON document:
/// what the store keeps (``PersonalData``, never a password or token hash), with the titles of the
/// studies, and what each module part keeps or computes from it
/// (``ServerModulePart/personalData(userId:environment:)``) as further members of the document.
struct PersonalDataExport: Sendable {
    static let format = "uniti-personal-data/1"
    let environment: ServerEnvironment

    struct Document: Codable, Sendable {
        var format: String
        var exportedAt: String
        var account: PersonalData.Account
        var memberships: [Membership]
        var sheets: [StoredAnswerSheet]
        var records: [ModuleRecord]
        var sessions: [PersonalData.Session]
        var mailedCodes: [PersonalData.MailedCode]
        var studyPasswordFailures: [PersonalData.StudyPasswordFailures]
        /// Every prompt lifecycle event the person's devices sent (issue 30).
        var promptEvents: [PromptEvent] = []
        /// The alerts study teams' rules raised about the person (issue 47).
        var alerts: [PersonalData.Alert] = []
        /// The person's randomisations, without the arm (issue 48).
        var allocations: [PersonalData.Allocation] = []
        /// The person's screenings kept under their account (issue 48).
        var screenings: [PersonalData.Screening] = []
    }

    struct Membership: Codable, Sendable {
        var studyId: String
        var studyTitle: LocalizedText?
        var status: String
        var requestedAt: String
        var updatedAt: String
        var joinedAt: String?
        /// The study site they belong to, by its id.
        var site: String?
        /// The consent versions agreed to, each with its text.
        var consents: [PersonalData.Consent]
    }

    /// The person's document, or nil when there is no such account.
    func document(userId: Int64) async throws -> Document? {
        let store = environment.store
        guard let data = try await store.personalData(userId: userId) else { return nil }
        var memberships: [Membership] = []
        for membership in data.memberships {
            memberships.append(Membership(studyId: membership.studyId, studyTitle: try await store.study(id: membership.studyId)?.title,
                                          status: membership.status, requestedAt: membership.requestedAt,
                                          updatedAt: membership.updatedAt, joinedAt: membership.joinedAt,
                                          site: membership.site, consents: membership.consents))
        }
        var document = Document(format: Self.format, exportedAt: Timestamps.format(environment.clock.now()), account: data.account,
                                memberships: memberships, sheets: data.sheets, records: data.records,
                                sessions: data.sessions, mailedCodes: data.mailedCodes, studyPasswordFailures: data.studyPasswordFailures)
        document.promptEvents = data.promptEvents
        document.alerts = data.alerts
        document.allocations = data.allocations
        document.screenings = data.screenings
        return document
    }

    /// The document as pretty JSON with sorted keys (stable to read and compare).
    func json(userId: Int64) async throws -> Data? {
        guard let document = try await document(userId: userId) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var members = try JSONDecoder().decode([String: JSONValue].self, from: encoder.encode(document))
        for part in environment.store.modules.parts(PersonalDataHolding.self) {
            for (key, value) in try await part.personalData(userId: userId, environment: environment) {
                guard members[key] == nil else { throw StoreCorruption("module \(part.id) adds \(key) to the data download twice") }
                members[key] = value
            }
        }
        return try encoder.encode(members)
    }
}
