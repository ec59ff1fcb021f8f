import Foundation
import UNITIConfigurations
import UNITIProtocol

/// One questionnaire a person may answer in the portal: a baseline questionnaire (owned by the
/// shell, answered once) or a study questionnaire (owned by the module that presents it).
struct PortalQuestionnaire: Sendable {
    var definition: QuestionnaireDefinition
    var studyId: String
    /// Whose draft and sheet it is on the devices: ``ModuleID/shell`` for the shared baseline,
    /// else the module that presents it. The draft record lives under this owner.
    var owner: ModuleID
    var isBaseline: Bool
    /// False once the study team deactivated it: listed, not fillable.
    var active: Bool

    var id: String { definition.id }
    /// A baseline, or a study questionnaire asked once: finished, it is done for good.
    var isOneTime: Bool { isBaseline || definition.kind == .oneTime }
}

/// What the portal knows of a person's questionnaires: which they may answer (from the same list
/// the devices keep their study questionnaires from), and the draft of each as the synced record
/// the shell and the modules write (owner, kind `draft`, id the questionnaire's; see the core's
/// `SyncedDraft`). Reading and writing go straight to the store, with the record store's rule:
/// the newest update time wins.
struct PortalQuestionnaires: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// The shared baseline's questionnaire ids. Server studies declare no baseline of their own,
    /// so the devices fall back to the bundled default study's (the core's
    /// `StudyCatalog.baselineQuestionnaireIDs`); the portal reads the same file.
    static let baselineIds: [String] = {
        guard let data = BundledConfiguration.data("default-study.json"),
              let study = try? JSONDecoder().decode(StudyDescriptor.self, from: data) else { return [] }
        return study.baseline ?? []
    }()

    /// The person's questionnaires: baseline ones first (in the baseline's order), then the
    /// study questionnaires in the order of the studies and their imports; in a randomised
    /// study, those the person's arm offers now (``ArmView/offered(_:store:userId:now:)``). A definition the
    /// server cannot read is left out (the API serves it to devices as it is).
    /// Each as a reader of `language` reads it: a text missing in it in the study's first
    /// language, then English (``StudyLanguages``).
    func available(userId: Int64, language: String) async throws -> [PortalQuestionnaire] {
        var found: [PortalQuestionnaire] = []
        let members = try await ArmView.offered(try await store.memberQuestionnaires(userId: userId), store: store, userId: userId,
                                                now: environment.clock.now())
        for member in members {
            guard !found.contains(where: { $0.id == member.link.questionnaireId }),
                  let stored = try? JSONDecoder().decode(QuestionnaireDefinition.self,
                                                         from: JSONCoding.data(StudyLanguages.served(member.definition, languages: member.studyLanguages)))
            else { continue }
            // As the device shows it: in the reader's language (``StudyLanguages``), filled in by
            // the module (Track Your Tinnitus's worst symptom).
            let definition = try await store.modules.personalized(stored.reading(in: language), userId: userId, store: store)
            let isBaseline = Self.baselineIds.contains(definition.id)
            found.append(PortalQuestionnaire(definition: definition, studyId: member.link.studyId,
                                             owner: isBaseline ? .shell : member.link.module, isBaseline: isBaseline,
                                             active: member.link.isActive))
        }
        let baseline = Self.baselineIds.compactMap { id in found.first { $0.id == id } }
        return baseline + found.filter { !$0.isBaseline }
    }

    /// One of the person's questionnaires; nil for an id they cannot see (never another study's).
    func questionnaire(id: String, userId: Int64, language: String) async throws -> PortalQuestionnaire? {
        try await available(userId: userId, language: language).first { $0.id == id }
    }

    // MARK: Drafts

    /// The stored draft of the person's questionnaire and its update time; nil when there is none
    /// (or a tombstone, or a payload that is no draft of it).
    func draft(of questionnaire: PortalQuestionnaire, userId: Int64) async throws -> (draft: QuestionnaireDraft, updatedAt: Date)? {
        guard let record = try await store.record(userId: userId, moduleId: questionnaire.owner.rawValue,
                                                  clientId: QuestionnaireDraft.recordClientID(questionnaireID: questionnaire.id)),
              !record.deleted, let payload = record.payload, let updatedAt = Timestamps.parse(record.updatedAt),
              let draft = try? JSONDecoder().decode(QuestionnaireDraft.self, from: JSONCoding.data(payload)),
              draft.sheet.questionnaireID == questionnaire.id else { return nil }
        return (draft, updatedAt)
    }

    /// Stores the draft (or, finished, the sheet in its place) as the synced record. Its time is
    /// now, or a millisecond after the stored version when a device clock ran ahead: the person
    /// is answering here and now, so this version must win over what it continues.
    /// Returns the update time it was stored with.
    @discardableResult
    func save(_ draft: QuestionnaireDraft, of questionnaire: PortalQuestionnaire, userId: Int64, replacing previous: Date?) async throws -> Date {
        var stamp = environment.clock.now()
        if let previous, stamp.timeIntervalSince1970 < previous.timeIntervalSince1970 + 0.001 {
            stamp = previous.addingTimeInterval(0.0015)
        }
        // The time as the wire carries it (milliseconds), so the stored and the pulled one agree.
        let text = Timestamps.formatMilliseconds(stamp)
        let payload = try JSONDecoder().decode(JSONValue.self, from: JSONCoding.data(draft))
        let upsert = ModuleRecordUpsert(moduleId: questionnaire.owner.rawValue,
                                        clientId: QuestionnaireDraft.recordClientID(questionnaireID: questionnaire.id),
                                        updatedAt: text, payload: payload)
        let updatedAt = Timestamps.parse(text) ?? stamp
        _ = try await store.applyRecords(userId: userId, changes: [RecordChange(upsert: upsert, updatedAt: updatedAt)])
        return updatedAt
    }

    // MARK: Finished sheets

    /// The end time of the newest finished sheet of each questionnaire the server holds for the person.
    func lastFinished(userId: Int64) async throws -> [String: OffsetTimestamp] {
        var last: [String: OffsetTimestamp] = [:]
        var offset = 0
        while true {
            let page = try await store.sheets(userId: userId, offset: offset, limit: 500)
            for stored in page.sheets where !stored.sheet.isPartial {
                let end = stored.sheet.endedAt ?? stored.sheet.startedAt
                if let known = last[stored.sheet.questionnaireID], known.date >= end.date { continue }
                last[stored.sheet.questionnaireID] = end
            }
            offset += page.sheets.count
            if page.sheets.isEmpty || offset >= page.total { return last }
        }
    }
}
