/// A 64-bit FNV-1a hash of a text's UTF-8 bytes: stable across runs, processes and machines
/// (Swift's `Hasher` is seeded per process), for names derived from names (resource ids, seeds of
/// random prompt times, a data directory's key). Not for secrets.
public enum StableHash {
    /// FNV-1a with the standard offset basis, or another (two bases give two independent hashes).
    public static func fnv1a(_ text: String, basis: UInt64 = 0xCBF2_9CE4_8422_2325) -> UInt64 {
        var hash = basis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
