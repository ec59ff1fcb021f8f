import Foundation

/// Keys the server processes share through the store (the portal's CSRF signing key): made once,
/// by whichever process asks first, and from then on the same for every process on the database
/// and across restarts. Part of every ``ServerStore``.
public protocol ServerSecretStore: Sendable {
    /// The secret named `name`; when there is none yet, `make()` is stored and returned. Two
    /// processes asking at once both get the one that was stored first.
    func secret(named name: String, orStore make: @Sendable () -> Data) async throws -> Data
}
