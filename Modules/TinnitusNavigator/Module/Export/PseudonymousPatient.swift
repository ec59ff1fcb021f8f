import Foundation
import UNITICore
import TinnitusNavigatorShared
import UNITIProtocol

/// The shell's pseudonym for the person (``PseudonymousPatient``): a random UUID, drawn once
/// from the context's random source and kept in the module's settings, so every export from
/// this data directory names the same patient and a receiver can put two exports together. The
/// session knows no server-side user id to derive it from, and deriving it from the login name
/// would tie the pseudonym to the address.
extension PseudonymousPatient {
    static let settingKey = "fhir.patient"

    /// The kept pseudonym, or a new one (kept at once).
    init(_ context: ModuleContext) throws {
        if let text = try context.moduleSetting(Self.settingKey), let uuid = UUID(uuidString: text) {
            self.init(id: FHIRResourceID(uuid: uuid))
            return
        }
        let uuid = Self.randomUUID(context.random)
        try context.setModuleSetting(Self.settingKey, to: uuid.uuidString.lowercased())
        self.init(id: FHIRResourceID(uuid: uuid))
    }

    /// A version 4 (random) UUID from the injected random source, so tests decide it.
    static func randomUUID(_ random: any RandomSource) -> UUID {
        UUID(high: random.nextUInt64(), low: random.nextUInt64(), version: 4)
    }
}
