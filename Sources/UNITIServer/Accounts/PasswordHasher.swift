import HummingbirdBcrypt

/// Bcrypt through hummingbird-auth. The cost is configurable so that tests run fast; the server
/// uses 12 (about a quarter second per hash on one core), which also slows guessing.
public struct PasswordHasher: Sendable {
    public let cost: UInt8
    /// A hash of nothing in particular, checked when a login names no account, so that answering
    /// "wrong" takes as long for unknown logins as for known ones.
    let decoyHash: String

    public init(cost: UInt8 = 12) {
        self.cost = cost
        self.decoyHash = Bcrypt.hash("decoy password that matches nothing", cost: cost)
    }

    public func hash(_ password: String) async -> String {
        let cost = self.cost
        return await Task.detached { Bcrypt.hash(password, cost: cost) }.value
    }

    public func verify(_ password: String, hash: String) async -> Bool {
        await Task.detached { Bcrypt.verify(password, hash: hash) }.value
    }
}
