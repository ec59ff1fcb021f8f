import Foundation
import UNITIProtocol

/// An event as FHIR: an appointment becomes an `Encounter`, anything else (a tinnitus attack,
/// a period of mental illness, other) an `Observation`.
///
/// Why: an appointment is a meeting with a health professional, FHIR's `Encounter`; its
/// `period` starts at the event's time (the record has no end), `status` is `planned` while it
/// lies ahead and `finished` after, `class` is ambulatory (`AMB`), the title is its `type`
/// and the description its `reasonCode` (what the appointment was about; R4's Encounter has no
/// note). `Appointment` would need an end time the record does not have. The other kinds
/// are something the person noticed at a moment: an `Observation` with the kind as `code.text`
/// (LOINC and SNOMED CT codes name a diagnosis or a finding by a clinician, which a
/// self-reported attack is not, so no code is claimed), the title as `valueString` and the
/// description as a `note`. A period of mental illness reported by the person is not a
/// diagnosed `Condition` either.
public struct HealthEventFHIR: Sendable {
    public let patient: PseudonymousPatient
    public let words: FHIRExportWords
    /// Decides whether an appointment is planned or finished.
    public let now: Date
    /// The zone the event times are written in, with its offset.
    public let timeZone: TimeZone

    public init(patient: PseudonymousPatient, words: FHIRExportWords, now: Date, timeZone: TimeZone) {
        self.patient = patient
        self.words = words
        self.now = now
        self.timeZone = timeZone
    }

    /// The FHIR resource type an event becomes.
    public static func resourceType(of kind: HealthEvent.Kind) -> String {
        kind == .appointment ? "Encounter" : "Observation"
    }

    public func entry(_ event: HealthEvent) -> FHIRBundleEntry {
        let at = OffsetTimestamp(event.at, in: timeZone).text
        let subject = FHIR.reference(patient.id)
        let resource: JSONValue
        if event.type == .appointment {
            resource = FHIR.object([
                "resourceType": .string("Encounter"),
                "status": .string(event.at > now ? "planned" : "finished"),
                "class": FHIR.coding(system: FHIR.actCode, code: "AMB", display: "ambulatory"),
                "type": .array([FHIR.concept(text: event.title)]),
                "subject": subject,
                "period": FHIR.period(start: at, end: nil),
                "reasonCode": event.description.map { .array([FHIR.concept(text: $0)]) },
            ])
        } else {
            resource = FHIR.object([
                "resourceType": .string("Observation"),
                "status": .string("final"),
                "code": FHIR.concept(text: words.eventKind(event.type)),
                "subject": subject,
                "effectiveDateTime": .string(at),
                "valueString": .string(event.title),
                "note": event.description.map { .array([FHIR.annotation($0)]) },
            ])
        }
        return FHIRBundleEntry(id: patient.resourceID("event", event.id), resource: resource)
    }
}
