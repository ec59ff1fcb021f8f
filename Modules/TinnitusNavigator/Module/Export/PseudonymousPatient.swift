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
        UUID(high: random.nextUInt64(), low: random.nextUInt64(), version: 4)
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
