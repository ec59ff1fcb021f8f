import Foundation

/// The id of one resource in an exported bundle: a lowercase UUID, its `fullUrl`
/// `urn:uuid:<uuid>`, what every reference in the bundle points at.
///
/// Ids are name-based (``named(_:)``): the same record exported twice gets the same id, so two
/// exports of an unchanged record are byte for byte the same and a receiver can tell an updated
/// resource from a new one. No randomness and no clock are involved.
public struct FHIRResourceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The lowercase UUID.
    public let uuid: String

    /// An id from a UUID kept elsewhere (lowercased).
    public init(uuid: UUID) {
        self.uuid = uuid.uuidString.lowercased()
    }

    /// The id a name always gives: a version 8 ("custom") UUID of RFC 9562, whose 122 free bits
    /// are two 64-bit FNV-1a hashes of the name's UTF-8 bytes with different offset bases, each
    /// run through SplitMix64's finalizer. Version 5 would need SHA-1, which the client does
    /// not otherwise carry; the ids only have to be stable and, within one bundle, distinct
    /// (were the two hashes independent, a collision among a million names would have a chance
    /// of about 10⁻²⁵).
    public static func named(_ name: String) -> FHIRResourceID {
        let high = mix(StableHash.fnv1a(name))
        let low = mix(StableHash.fnv1a(name, basis: 0x6C62_272E_07BB_0142))
        let uuid = UUID(high: high, low: low, version: 8)
        return FHIRResourceID(uuid: uuid)
    }

    /// `urn:uuid:<uuid>`, the entry's `fullUrl` and what references name.
    public var fullURL: String { "urn:uuid:\(uuid)" }

    public var description: String { fullURL }

    public static func < (lhs: FHIRResourceID, rhs: FHIRResourceID) -> Bool { lhs.uuid < rhs.uuid }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
