import Foundation
import UNITICore
import UNITIProtocol

/// The person's whole health record as the entries of one FHIR R4 `collection` bundle (issue
/// 14; README-fhir.md has the mapping), in a fixed order so the same record always gives the
/// same file: the `Patient`, the `Questionnaire`s answered (by id and version), the
/// `QuestionnaireResponse`s (by completion), the audiograms (by date, each panel before its
/// members), the therapies (by start) and the events (by time), ties broken by id.
///
/// Entries are handed out one at a time (``forEachEntry(_:)``) so the writer can stream them;
/// the records themselves are read at once (ten thousand events are a few megabytes).
struct FHIRBundleBuilder {
    let context: ModuleContext

    /// The bundle's timestamp: now, with the person's UTC offset.
    var timestamp: String { OffsetTimestamp(context.clock.now, in: context.clock.timeZone).text }

    func forEachEntry(_ body: (FHIRBundleEntry) throws -> Void) throws {
        let store = HealthRecordStore(context)
        let patient = try PseudonymousPatient(context)
        let clock = context.clock
        try body(patient.resource)

        // Questionnaires and the responses to them. A definition is looked up once per version.
        let completed = try store.all(CompletedQuestionnaire.self)
            .sorted { ($0.completedAt, $0.id) < ($1.completedAt, $1.id) }
        var definitions: [QuestionnaireKey: QuestionnaireDefinition] = [:]
        for record in completed {
            let key = QuestionnaireKey(id: record.questionnaireID, version: record.version)
            if definitions[key] == nil, let definition = try context.studyQuestionnaires.definition(answeredBy: record.sheet),
               definition.version == record.version {
                definitions[key] = definition
            }
        }
        for key in definitions.keys.sorted() {
            try body(FHIRBundleEntry(id: key.resourceID, resource: definitions[key]!.fhirQuestionnaire(url: key.resourceID.fullURL)))
        }
        for record in completed {
            let key = QuestionnaireKey(id: record.questionnaireID, version: record.version)
            let definition = definitions[key]
            try body(FHIRBundleEntry(
                id: patient.resourceID("questionnaire-response", record.id),
                resource: record.sheet.fhirQuestionnaireResponse(definition: definition,
                                                                 questionnaireURL: key.resourceID.fullURL, subject: patient.id)))
        }

        let audiograms = AudiogramFHIR(patient: patient, localizer: context.localizer)
        for audiogram in try store.all(Audiogram.self).sorted(by: { ($0.date, $0.id) < ($1.date, $1.id) }) {
            for entry in audiograms.entries(audiogram) { try body(entry) }
        }

        let therapies = TherapyFHIR(patient: patient, today: LocalDate(clock.now, in: clock.timeZone))
        for therapy in try store.all(Therapy.self).sorted(by: { ($0.start, $0.id) < ($1.start, $1.id) }) {
            try body(therapies.entry(therapy))
        }

        let events = HealthEventFHIR(patient: patient, now: clock.now, timeZone: clock.timeZone)
        for event in try store.all(HealthEvent.self).sorted(by: { ($0.at, $0.id) < ($1.at, $1.id) }) {
            try body(events.entry(event))
        }
    }
}

/// One version of one questionnaire: its resource id is the same for every person, so the
/// same definition has the same canonical URL in every export.
struct QuestionnaireKey: Hashable, Comparable {
    let id: String
    let version: Int

    var resourceID: FHIRResourceID { FHIRResourceID.named("questionnaire/\(id)/\(version)") }

    static func < (lhs: QuestionnaireKey, rhs: QuestionnaireKey) -> Bool { (lhs.id, lhs.version) < (rhs.id, rhs.version) }
}
