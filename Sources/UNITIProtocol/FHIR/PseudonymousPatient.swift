/// The person in an export: a FHIR `Patient` with nothing but a pseudonym.
///
/// The record is for a doctor or a study the person chooses to give it to; who they are is for
/// them to say. So the `Patient` has no name, no e-mail, no contact and no account name (the
/// login name may be an e-mail address): only an id that names no one. The shell draws a random
/// one per data directory (the session knows no server-side user id); the server derives one
/// from the account's study pseudonym, the name its exports already use.
public struct PseudonymousPatient: Sendable {
    public let id: FHIRResourceID

    public init(id: FHIRResourceID) {
        self.id = id
    }

    /// The `Patient` resource: the pseudonym as its only identifier.
    public var resource: FHIRBundleEntry {
        FHIRBundleEntry(id: id, resource: .object([
            "resourceType": .string("Patient"),
            "identifier": .array([.object([
                "system": .string(FHIR.uriIdentifierSystem),
                "value": .string(id.fullURL),
            ])]),
        ]))
    }

    /// The id of a resource made from one of the person's entries: stable for this person.
    public func resourceID(_ parts: String...) -> FHIRResourceID {
        FHIRResourceID.named(([id.uuid] + parts).joined(separator: "/"))
    }
}
