import Foundation
import UNITIProtocol

/// A person's health record as the entries of one FHIR R4 `collection` bundle (README-fhir.md
/// has the mapping), in a fixed order so the same record always gives the same file: the
/// `Patient`, the `Questionnaire`s answered (by id and version), the `QuestionnaireResponse`s
/// (in the order given), the audiograms (by date, each panel before its members), the therapies
/// (by start) and the events (by time), ties broken by id.
///
/// Shared by the shell's `tn export --fhir` and the portal's download, which read the record
/// from different stores and hand it over here; entries are handed out one at a time
/// (``forEachEntry(_:)``) so the writer can stream them.
public struct HealthRecordBundle: Sendable {
    /// One answered questionnaire: the sheet, the definition it answered when known (a
    /// `QuestionnaireResponse` without one still carries every answer), and the id part that
    /// names its resource within the person's bundle.
    public struct Response: Sendable {
        public var id: String
        public var sheet: AnswerSheet
        public var definition: QuestionnaireDefinition?

        public init(id: String, sheet: AnswerSheet, definition: QuestionnaireDefinition?) {
            self.id = id
            self.sheet = sheet
            self.definition = definition
        }
    }

    public var patient: PseudonymousPatient
    public var words: FHIRExportWords
    public var now: Date
    /// The person's zone: event times carry its offset, and "today" for a therapy's status is its day.
    public var timeZone: TimeZone
    public var responses: [Response]
    public var audiograms: [Audiogram]
    public var therapies: [Therapy]
    public var events: [HealthEvent]

    public init(patient: PseudonymousPatient, words: FHIRExportWords, now: Date, timeZone: TimeZone, responses: [Response],
                audiograms: [Audiogram], therapies: [Therapy], events: [HealthEvent]) {
        self.patient = patient
        self.words = words
        self.now = now
        self.timeZone = timeZone
        self.responses = responses
        self.audiograms = audiograms
        self.therapies = therapies
        self.events = events
    }

    /// The bundle's timestamp: now, with the person's UTC offset.
    public var timestamp: String { OffsetTimestamp(now, in: timeZone).text }

    public func forEachEntry(_ body: (FHIRBundleEntry) throws -> Void) throws {
        try body(patient.resource)

        // A definition is written once per version, and only the version the sheet answered.
        var definitions: [QuestionnaireKey: QuestionnaireDefinition] = [:]
        for response in responses {
            let key = QuestionnaireKey(id: response.sheet.questionnaireID, version: response.sheet.questionnaireVersion)
            if definitions[key] == nil, let definition = response.definition, definition.id == key.id, definition.version == key.version {
                definitions[key] = definition
            }
        }
        for key in definitions.keys.sorted() {
            try body(FHIRBundleEntry(id: key.resourceID, resource: definitions[key]!.fhirQuestionnaire(url: key.resourceID.fullURL)))
        }
        for response in responses {
            let key = QuestionnaireKey(id: response.sheet.questionnaireID, version: response.sheet.questionnaireVersion)
            try body(FHIRBundleEntry(
                id: patient.resourceID("questionnaire-response", response.id),
                resource: response.sheet.fhirQuestionnaireResponse(definition: definitions[key],
                                                                   questionnaireURL: key.resourceID.fullURL, subject: patient.id)))
        }

        let audiogramMapping = AudiogramFHIR(patient: patient, words: words)
        for audiogram in audiograms.sorted(by: { ($0.date, $0.id) < ($1.date, $1.id) }) {
            for entry in audiogramMapping.entries(audiogram) { try body(entry) }
        }

        let therapyMapping = TherapyFHIR(patient: patient, words: words, today: Self.day(now, in: timeZone))
        for therapy in therapies.sorted(by: { ($0.start, $0.id) < ($1.start, $1.id) }) {
            try body(therapyMapping.entry(therapy))
        }

        let eventMapping = HealthEventFHIR(patient: patient, words: words, now: now, timeZone: timeZone)
        for event in events.sorted(by: { ($0.at, $0.id) < ($1.at, $1.id) }) {
            try body(eventMapping.entry(event))
        }
    }

    /// The calendar day of `date` in `zone`, `YYYY-MM-DD`.
    static func day(_ date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}
