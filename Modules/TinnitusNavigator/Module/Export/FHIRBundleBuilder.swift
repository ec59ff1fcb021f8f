import Foundation
import UNITICore
import TinnitusNavigatorShared
import UNITIProtocol

/// The person's whole health record, read from this data directory, as a FHIR R4 `collection`
/// bundle (issue 14; README-fhir.md has the mapping). The mapping and the order of the entries
/// are ``HealthRecordBundle``'s, shared with the server's portal; this reads the record, the
/// completed questionnaires (by completion) with the definitions they answered, and the words
/// in the person's language.
///
/// The records are read at once (ten thousand events are a few megabytes); the entries are
/// handed to the writer one at a time.
struct FHIRBundleBuilder {
    let context: ModuleContext

    func bundle() throws -> HealthRecordBundle {
        let store = HealthRecordStore(context)
        let completed = try store.all(CompletedQuestionnaire.self)
            .sorted { ($0.completedAt, $0.id) < ($1.completedAt, $1.id) }
        // A definition is looked up once per version.
        var definitions: [QuestionnaireKey: QuestionnaireDefinition?] = [:]
        var responses: [HealthRecordBundle.Response] = []
        for record in completed {
            let key = QuestionnaireKey(id: record.questionnaireID, version: record.version)
            if definitions[key] == nil {
                definitions[key] = .some(try context.studyQuestionnaires.definition(answeredBy: record.sheet))
            }
            responses.append(HealthRecordBundle.Response(id: record.id, sheet: record.sheet, definition: definitions[key] ?? nil))
        }
        let localizer = context.localizer
        return HealthRecordBundle(
            patient: try PseudonymousPatient(context), words: FHIRExportWords({ key, values in localizer(key, values) }),
            now: context.clock.now, timeZone: context.clock.timeZone, responses: responses,
            audiograms: try store.all(Audiogram.self), therapies: try store.all(Therapy.self), events: try store.all(HealthEvent.self))
    }
}
