import Foundation
import UNITIProtocol

/// A study's sheets as FHIR R4 resources for bulk-data style NDJSON (one resource per line,
/// one file per resource type, as the FHIR Bulk Data Access specification writes its output):
/// `Patient` (a pseudonym and nothing else), `Questionnaire` (each version answered) and
/// `QuestionnaireResponse` (each sheet).
///
/// The ids are those of the participant portal's FHIR download of the health record: the
/// Patient is named from the study pseudonym, a response from the sheet's id, a Questionnaire
/// from its id and version, so a receiver can match resources of both. Outside a bundle, a
/// reference names `Patient/<id>`; a response's `questionnaire` is the Questionnaire's canonical
/// `url`.
enum FHIRBulkExport {
    /// The resource types of the three files, in the order they are written.
    static let resourceTypes = ["Patient", "Questionnaire", "QuestionnaireResponse"]

    static func patient(pseudonym: String) -> PseudonymousPatient {
        PseudonymousPatient(id: .named("uniti-server/patient/\(pseudonym)"))
    }

    /// The Patient resource, with its `id`.
    static func patientResource(_ patient: PseudonymousPatient) -> JSONValue {
        withID(patient.resource.resource, patient.id)
    }

    static func questionnaireResource(_ definition: QuestionnaireDefinition) -> JSONValue {
        let key = QuestionnaireKey(id: definition.id, version: definition.version)
        return withID(definition.fhirQuestionnaire(url: key.resourceID.fullURL), key.resourceID)
    }

    static func responseResource(_ sheet: AnswerSheet, definition: QuestionnaireDefinition?, patient: PseudonymousPatient) -> JSONValue {
        let key = QuestionnaireKey(id: sheet.questionnaireID, version: sheet.questionnaireVersion)
        var resource = sheet.fhirQuestionnaireResponse(definition: definition, questionnaireURL: key.resourceID.fullURL, subject: patient.id)
        if case .object(var members) = resource {
            members["subject"] = .object(["reference": .string("Patient/\(patient.id.uuid)")])
            resource = .object(members)
        }
        return withID(resource, patient.resourceID("questionnaire-response", sheet.id.uuidString.lowercased()))
    }

    /// One NDJSON line: the resource with sorted keys, no spaces, then a line feed.
    static func line(_ resource: JSONValue) throws -> Data {
        var data = try encoder.encode(resource)
        data.append(0x0A)
        return data
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static func withID(_ resource: JSONValue, _ id: FHIRResourceID) -> JSONValue {
        guard case .object(var members) = resource else { return resource }
        members["id"] = .string(id.uuid)
        return .object(members)
    }
}
