import Foundation

extension UUID {
    /// A UUID from 128 bits (`high` first, big-endian) with the RFC 9562 `version` and variant
    /// set over them: for ids made from a hash (version 8) or from an injected random source
    /// (version 4) instead of `UUID()`, whose randomness tests cannot decide.
    public init(high: UInt64, low: UInt64, version: UInt8) {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | (version << 4)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // variant 10
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
