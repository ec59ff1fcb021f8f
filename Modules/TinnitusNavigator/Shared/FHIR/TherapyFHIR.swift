import Foundation
import UNITIProtocol

/// A therapy as a FHIR `Procedure`, or a `MedicationStatement` for a medical (drug) treatment.
///
/// Why: a therapy in the record is a named course with a start, an end and a note, which is
/// what `Procedure` (with `performedPeriod`) describes for anything done for the person, from
/// psychotherapy to retraining therapy. A medical treatment is a medication taken, which a
/// receiving system looks for in `MedicationStatement`. A hearing aid or masker would fit
/// `DeviceUseStatement`, but that requires a `Device` resource, and the record names a therapy,
/// not a device: a `Device` made up from the therapy's name would claim more than is known.
///
/// Status by the dates on today (the caller's clock, in the person's zone): not yet started → `preparation`
/// (`intended`), running → `in-progress` (`active`), ended → `completed`.
public struct TherapyFHIR: Sendable {
    public let patient: PseudonymousPatient
    public let words: FHIRExportWords
    /// Today in the person's time zone, `YYYY-MM-DD`.
    public let today: String

    public init(patient: PseudonymousPatient, words: FHIRExportWords, today: String) {
        self.patient = patient
        self.words = words
        self.today = today
    }

    public enum Phase: Equatable {
        case planned, running, ended
    }

    /// Where a therapy stands on `day`: a therapy ending today still runs.
    public static func phase(of therapy: Therapy, on day: String) -> Phase {
        if RecordDay.isBefore(day, therapy.start) { return .planned }
        if let end = therapy.end, RecordDay.isBefore(end, day) { return .ended }
        return .running
    }

    /// The FHIR status of a therapy on `day`, for the resource type it becomes.
    public static func status(of therapy: Therapy, on day: String) -> String {
        switch (phase(of: therapy, on: day), therapy.type == .medical) {
        case (.planned, false): return "preparation"
        case (.planned, true): return "intended"
        case (.running, false): return "in-progress"
        case (.running, true): return "active"
        case (.ended, _): return "completed"
        }
    }

    public static func resourceType(of therapy: Therapy) -> String {
        therapy.type == .medical ? "MedicationStatement" : "Procedure"
    }

    public func entry(_ therapy: Therapy) -> FHIRBundleEntry {
        let period = FHIR.period(start: therapy.start, end: therapy.end)
        let kind = FHIR.concept(text: words.therapyKind(therapy.type))
        let name = FHIR.concept(text: therapy.name)
        var members: [String: JSONValue?] = [
            "resourceType": .string(Self.resourceType(of: therapy)),
            "status": .string(Self.status(of: therapy, on: today)),
            "category": kind,
            "subject": FHIR.reference(patient.id),
            "note": therapy.note.map { .array([FHIR.annotation($0)]) },
        ]
        if therapy.type == .medical {
            members["medicationCodeableConcept"] = name
            members["effectivePeriod"] = period
        } else {
            members["code"] = name
            members["performedPeriod"] = period
        }
        return FHIRBundleEntry(id: patient.resourceID("therapy", therapy.id), resource: FHIR.object(members))
    }
}
