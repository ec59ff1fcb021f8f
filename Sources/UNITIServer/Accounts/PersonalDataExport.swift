import Foundation
import UNITIProtocol

/// The download of everything stored about one person (GDPR-style access), as one JSON document:
/// what the store keeps (``PersonalData``, never a password or token hash) and what the server
/// computes from it (Track Your Hearing rewards, ``RewardRules``), with the titles of the studies.
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
        var rewards: [RewardStatus]
        var sessions: [PersonalData.Session]
        var mailedCodes: [PersonalData.MailedCode]
        var studyPasswordFailures: [PersonalData.StudyPasswordFailures]
    }

    struct Membership: Codable, Sendable {
        var studyId: String
        var studyTitle: LocalizedText?
        var status: String
        var requestedAt: String
        var updatedAt: String
        var joinedAt: String?
    }

    /// The person's document, or nil when there is no such account.
    func document(userId: Int64) async throws -> Document? {
        let store = environment.store
        guard let data = try await store.personalData(userId: userId) else { return nil }
        var memberships: [Membership] = []
        for membership in data.memberships {
            memberships.append(Membership(studyId: membership.studyId, studyTitle: try await store.study(id: membership.studyId)?.title,
                                          status: membership.status, requestedAt: membership.requestedAt,
                                          updatedAt: membership.updatedAt, joinedAt: membership.joinedAt))
        }
        let rewards = try await store.rewardSheets(userId: userId).map { RewardRules.status(studyId: $0.studyId, sheets: $0.sheets) }
        return Document(format: Self.format, exportedAt: Timestamps.format(environment.clock.now()), account: data.account,
                        memberships: memberships, sheets: data.sheets, records: data.records, rewards: rewards,
                        sessions: data.sessions, mailedCodes: data.mailedCodes, studyPasswordFailures: data.studyPasswordFailures)
    }

    /// The document as pretty JSON with sorted keys (stable to read and compare).
    func json(userId: Int64) async throws -> Data? {
        guard let document = try await document(userId: userId) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }
}
