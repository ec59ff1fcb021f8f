import Foundation
import UNITICore
import UNITIProtocol

/// The person in an export: a FHIR `Patient` with nothing but a pseudonym.
///
/// The record is for a doctor or a study the person chooses to give it to; who they are is for
/// them to say. So the `Patient` has no name, no e-mail, no contact and no account name (the
/// login name may be an e-mail address): only a random UUID, drawn once from the context's
/// random source and kept in the module's settings, so every export from this data directory
/// names the same patient and a receiver can put two exports together. The session knows no
/// server-side user id to derive it from, and deriving it from the login name would tie the
/// pseudonym to the address.
struct PseudonymousPatient {
    static let settingKey = "fhir.patient"

    let id: FHIRResourceID

    init(id: FHIRResourceID) {
        self.id = id
    }

    /// The kept pseudonym, or a new one (kept at once).
    init(_ context: ModuleContext) throws {
        if let text = try context.moduleSetting(Self.settingKey), let uuid = UUID(uuidString: text) {
            id = FHIRResourceID(uuid: uuid)
            return
        }
        let uuid = Self.randomUUID(context.random)
        try context.setModuleSetting(Self.settingKey, to: uuid.uuidString.lowercased())
        id = FHIRResourceID(uuid: uuid)
    }

    /// A version 4 (random) UUID from the injected random source, so tests decide it.
    static func randomUUID(_ random: any RandomSource) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for (offset, word) in [random.nextUInt64(), random.nextUInt64()].enumerated() {
            for index in 0..<8 { bytes[offset * 8 + index] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index))) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The `Patient` resource: the pseudonym as its only identifier.
    var resource: FHIRBundleEntry {
        FHIRBundleEntry(id: id, resource: .object([
            "resourceType": .string("Patient"),
            "identifier": .array([.object([
                "system": .string(FHIR.uriIdentifierSystem),
                "value": .string(id.fullURL),
            ])]),
        ]))
    }

    /// The id of a resource made from one of the person's entries: stable for this person.
    func resourceID(_ parts: String...) -> FHIRResourceID {
        FHIRResourceID.named(([id.uuid] + parts).joined(separator: "/"))
    }
}
