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
    /// (a collision among a million names has a chance of about 10⁻²⁵).
    public static func named(_ name: String) -> FHIRResourceID {
        let high = mix(fnv1a(name, basis: 0xCBF2_9CE4_8422_2325))
        let low = mix(fnv1a(name, basis: 0x6C62_272E_07BB_0142))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // variant 10 (RFC 9562)
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return FHIRResourceID(uuid: uuid)
    }

    /// `urn:uuid:<uuid>`, the entry's `fullUrl` and what references name.
    public var fullURL: String { "urn:uuid:\(uuid)" }

    public var description: String { fullURL }

    public static func < (lhs: FHIRResourceID, rhs: FHIRResourceID) -> Bool { lhs.uuid < rhs.uuid }

    private static func fnv1a(_ text: String, basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
