import Foundation
import UNITIProtocol

/// An audiogram as FHIR `Observation`s: a panel (LOINC 89015-2) whose `hasMember`s are one
/// Observation per ear and frequency for the hearing thresholds, then the thresholds of
/// discomfort, the tinnitus pitch and loudness per ear.
///
/// Why a panel with members and not one Observation with components: each threshold has a
/// LOINC code of its own that LOINC defines as a member of that panel, and each stands alone
/// (a doctor compares 4000 Hz left across years); components are for values that mean nothing
/// apart, such as the two pressures of a blood pressure.
///
/// Hearing levels are `dB HL`, coded in UCUM as `dB`: UCUM has no hearing-level unit (its
/// levels are `B`, `B[SPL]`, `B[V]`, `B[mV]`, `B[uV]`, `B[10.nV]`, `B[W]`, `B[kW]`; `dB[HL]`
/// is not valid UCUM), and the published examples of these LOINC codes use `dB`; the shown
/// `unit` says HL. Every value also has a `component` "frequency" in Hz, so one reader finds the
/// frequency the same way whether or not LOINC has a code for it.
public struct AudiogramFHIR: Sendable {
    public let patient: PseudonymousPatient
    public let words: FHIRExportWords

    public init(patient: PseudonymousPatient, words: FHIRExportWords) {
        self.patient = patient
        self.words = words
    }

    public func entries(_ audiogram: Audiogram) -> [FHIRBundleEntry] {
        var members: [FHIRBundleEntry] = []
        for values in audiogram.thresholds {
            for ear in Ear.allCases {
                guard let level = ear == .left ? values.left : values.right else { continue }
                let coding = HearingThresholdCodes.coding(ear, hz: values.hz)
                let text = words("tn.export.threshold", ["ear": words.ear(ear), "hz": "\(values.hz)"])
                members.append(observation(
                    id: patient.resourceID("audiogram", audiogram.id, "threshold", ear.rawValue, "\(values.hz)"),
                    audiogram: audiogram, code: FHIR.concept(coding.map { [$0] } ?? [], text: text), ear: ear,
                    value: FHIR.quantity(Double(level), unit: "dB HL", code: "dB"), hz: values.hz))
            }
        }
        for values in audiogram.discomfort {
            for ear in Ear.allCases {
                guard let level = ear == .left ? values.left : values.right else { continue }
                let text = words("tn.export.discomfort", ["ear": words.ear(ear), "hz": "\(values.hz)"])
                members.append(observation(
                    id: patient.resourceID("audiogram", audiogram.id, "discomfort", ear.rawValue, "\(values.hz)"),
                    audiogram: audiogram, code: FHIR.concept(text: text), ear: ear,
                    value: FHIR.quantity(Double(level), unit: "dB HL", code: "dB"), hz: values.hz))
            }
        }
        for ear in Ear.allCases {
            if let pitch = ear == .left ? audiogram.pitchLeft : audiogram.pitchRight {
                members.append(observation(
                    id: patient.resourceID("audiogram", audiogram.id, "pitch", ear.rawValue), audiogram: audiogram,
                    code: FHIR.concept(text: words("tn.export.pitch", ["ear": words.ear(ear)])), ear: ear,
                    value: FHIR.quantity(Double(pitch), unit: "Hz", code: "Hz"), hz: nil))
            }
            if let loudness = ear == .left ? audiogram.loudnessLeft : audiogram.loudnessRight {
                members.append(observation(
                    id: patient.resourceID("audiogram", audiogram.id, "loudness", ear.rawValue), audiogram: audiogram,
                    code: FHIR.concept(text: words("tn.export.loudness", ["ear": words.ear(ear)])), ear: ear,
                    value: FHIR.quantity(Double(loudness), unit: "dB", code: "dB"), hz: nil))
            }
        }
        let panel = FHIRBundleEntry(id: patient.resourceID("audiogram", audiogram.id), resource: FHIR.object([
            "resourceType": .string("Observation"),
            "status": .string("final"),
            "category": FHIR.examCategory,
            "code": FHIR.concept([HearingThresholdCodes.panel], text: words("tn.export.audiogram")),
            "subject": FHIR.reference(patient.id),
            "effectiveDateTime": .string(audiogram.date),
            "hasMember": .array(members.map { FHIR.reference($0.id) }),
            "note": audiogram.note.map { .array([FHIR.annotation($0)]) },
        ]))
        return [panel] + members
    }

    private func observation(id: FHIRResourceID, audiogram: Audiogram, code: JSONValue, ear: Ear, value: JSONValue,
                             hz: Int?) -> FHIRBundleEntry {
        FHIRBundleEntry(id: id, resource: FHIR.object([
            "resourceType": .string("Observation"),
            "status": .string("final"),
            "category": FHIR.examCategory,
            "code": code,
            "subject": FHIR.reference(patient.id),
            "effectiveDateTime": .string(audiogram.date),
            "valueQuantity": value,
            "bodySite": FHIR.concept(text: words("tn.export.ear", ["ear": words.ear(ear)])),
            "component": hz.map { hz in
                .array([.object([
                    "code": FHIR.concept(text: words("tn.export.frequency")),
                    "valueQuantity": FHIR.quantity(Double(hz), unit: "Hz", code: "Hz"),
                ])])
            },
        ]))
    }
}
