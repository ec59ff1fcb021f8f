import Foundation

/// Builders for the FHIR R4 (4.0.1) data types that exports write, as ``JSONValue`` trees.
///
/// A resource is a JSON object whose shape FHIR defines, so a builder per data type (Coding,
/// CodeableConcept, Reference, Quantity, Period, Annotation) keeps every resource the exports
/// make spelled the same way, and ``object(_:)`` drops absent members instead of writing
/// `null`, which FHIR JSON forbids. Code systems are named once here, with where they come from.
///
/// Topics: ``coding(system:code:display:)``, ``concept(_:text:)``, ``reference(_:)``,
/// ``quantity(_:unit:code:)``, ``period(start:end:)``, ``annotation(_:)``, ``localized(_:)``.
public enum FHIR {
    /// The FHIR version the exports follow (R4, http://hl7.org/fhir/R4/).
    public static let version = "4.0.1"
    /// LOINC (http://loinc.org, the system URI FHIR R4 names for it).
    public static let loinc = "http://loinc.org"
    /// UCUM, the units of measure a FHIR `Quantity` with a `code` uses.
    public static let ucum = "http://unitsofmeasure.org"
    /// FHIR R4's Observation category codes (`exam`, `survey`, …).
    public static let observationCategory = "http://terminology.hl7.org/CodeSystem/observation-category"
    /// HL7 v3 ActCode, the code system of `Encounter.class` in R4 (`AMB` ambulatory).
    public static let actCode = "http://terminology.hl7.org/CodeSystem/v3-ActCode"
    /// The identifier system for a URI as identifier value (`urn:uuid:…`), from FHIR R4's
    /// identifier registry.
    public static let uriIdentifierSystem = "urn:ietf:rfc:3986"
    /// The core extension that carries a text in another language (R4 extension registry).
    public static let translationExtension = "http://hl7.org/fhir/StructureDefinition/translation"
    /// Core extensions for the smallest and largest answer of a questionnaire item.
    public static let minValueExtension = "http://hl7.org/fhir/StructureDefinition/minValue"
    public static let maxValueExtension = "http://hl7.org/fhir/StructureDefinition/maxValue"
    /// UNITI's own extension of a `QuestionnaireResponse`: the EMA prompt it answers, or that the
    /// participant began it on their own (``AnswerSheet/fhirPromptExtension``). A URN, since the
    /// project publishes no StructureDefinition server; its parts are documented in
    /// `Documentation/analysing-a-study.md`.
    public static let promptExtension = "urn:uniti:fhir:StructureDefinition:ema-prompt"

    /// An object of the members that are present (nil members are left out, as FHIR JSON
    /// requires: it has no `null`).
    public static func object(_ members: [String: JSONValue?]) -> JSONValue {
        .object(members.compactMapValues { $0 })
    }

    /// A whole number (FHIR `integer`, and the value of a Quantity measured in whole steps).
    public static func integer(_ value: Int) -> JSONValue { .number(Double(value)) }

    public static func string(_ text: String?) -> JSONValue? { text.map(JSONValue.string) }

    public static func coding(system: String?, code: String, display: String? = nil) -> JSONValue {
        object(["system": string(system), "code": .string(code), "display": string(display)])
    }

    /// A CodeableConcept: codings where a code system has one, else the text alone (a code is
    /// never invented: an unknown concept is `{"text": …}`).
    public static func concept(_ codings: [JSONValue] = [], text: String?) -> JSONValue {
        object(["coding": codings.isEmpty ? nil : .array(codings), "text": string(text)])
    }

    /// A reference to another entry of the bundle by its full URL (`urn:uuid:…`).
    public static func reference(_ id: FHIRResourceID) -> JSONValue {
        .object(["reference": .string(id.fullURL)])
    }

    /// A measured amount with its UCUM unit `code` and the `unit` as people write it
    /// (`dB HL` shown, `dB` coded).
    public static func quantity(_ value: Double, unit: String, code: String) -> JSONValue {
        .object(["value": .number(value), "unit": .string(unit), "system": .string(ucum), "code": .string(code)])
    }

    /// A time span; the end is absent while it goes on.
    public static func period(start: String, end: String?) -> JSONValue {
        object(["start": .string(start), "end": string(end)])
    }

    /// A note (`Annotation`), for free text a person wrote.
    public static func annotation(_ text: String) -> JSONValue {
        .object(["text": .string(text)])
    }

    /// The category `exam` of an Observation.
    public static let examCategory: JSONValue = .array([
        concept([coding(system: observationCategory, code: "exam", display: "Exam")], text: nil),
    ])

    /// A text given in several languages, as FHIR carries it: the English text (the fallback
    /// every definition has) as the value, and each other language in a `translation` extension
    /// of the primitive's `_element` (nil when there is no other language). Languages sorted,
    /// so the output is the same every time.
    public static func localized(_ text: LocalizedText) -> (value: String, element: JSONValue?) {
        let base = text.text(in: baseLanguage)
        let others = text.values.filter { $0.key != baseLanguage && !$0.value.isEmpty }.sorted { $0.key < $1.key }
        guard !others.isEmpty else { return (base, nil) }
        let extensions = others.map { language, value in
            JSONValue.object([
                "url": .string(translationExtension),
                "extension": .array([
                    .object(["url": .string("lang"), "valueCode": .string(language)]),
                    .object(["url": .string("content"), "valueString": .string(value)]),
                ]),
            ])
        }
        return (base, .object(["extension": .array(extensions)]))
    }

    /// The language of texts in exported definitions (the one every definition has).
    public static let baseLanguage = "en"
}
