import UNITIProtocol

/// The LOINC codes of pure-tone hearing thresholds, one per ear and frequency: the members of
/// the panel LOINC 89015-2 "Pure tone threshold audiometry panel", as the HL7 PACIO SPLASCH
/// implementation guide lists them (value set SPLASCHPureToneThresholdAudiometryPanel; also
/// used by AU Core's example "Hearing threshold Ear (left) 500 Hz", code 89024-4). LOINC has
/// none for 125 Hz or above 8000 Hz: those thresholds carry `code.text` only (README-fhir.md).
public enum HearingThresholdCodes {
    public static let panel = FHIR.coding(system: FHIR.loinc, code: "89015-2", display: "Pure tone threshold audiometry panel")

    /// Frequency (Hz) → LOINC code, per ear.
    public static let left: [Int: String] = [
        250: "91375-6", 500: "89024-4", 750: "91379-8", 1000: "89016-0", 1500: "91373-1", 2000: "89018-6",
        3000: "89020-2", 4000: "89022-8", 5000: "91377-2", 6000: "89026-9", 8000: "89028-5",
    ]
    public static let right: [Int: String] = [
        250: "91374-9", 500: "89025-1", 750: "91378-0", 1000: "89017-8", 1500: "91372-3", 2000: "89019-4",
        3000: "89021-0", 4000: "89023-6", 5000: "91376-4", 6000: "89027-7", 8000: "89029-3",
    ]

    /// The LOINC coding of one ear's threshold at `hz`, with LOINC's display name; nil where
    /// LOINC has no code.
    public static func coding(_ ear: Ear, hz: Int) -> JSONValue? {
        guard let code = (ear == .left ? left : right)[hz] else { return nil }
        return FHIR.coding(system: FHIR.loinc, code: code, display: "Hearing threshold Ear - \(ear.rawValue) --\(hz) Hz")
    }
}
