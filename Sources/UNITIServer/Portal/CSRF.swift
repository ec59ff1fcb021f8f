import Crypto
import Foundation
import Hummingbird
import Synchronization

/// The CSRF key of every server process on one store: read from (or, the first time, made and
/// written to) ``ServerStore`` at the first form, then kept for the life of the process.
final class CSRFKeys: Sendable {
    package static let secretName = "portal-csrf-key"
    private let store: ServerStore
    private let clock: any ServerClock
    private let loaded = Mutex<CSRF?>(nil)

    package init(store: ServerStore, clock: any ServerClock) {
        self.store = store
        self.clock = clock
    }

    package func csrf() async throws -> CSRF {
        if let csrf = loaded.withLock({ $0 }) { return csrf }
        let bytes = try await store.secret(named: Self.secretName, now: clock.now()) {
            SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        }
        let csrf = CSRF(key: SymmetricKey(data: bytes))
        loaded.withLock { $0 = csrf }
        return csrf
    }
}

extension CSRFKeys {
    /// The posted form's check (``CSRFCheck``), for the portal's forms and the console's, which
    /// differ only in the session, the visitor cookie and the page
    /// that refuses: returns the request with its form collected (the handler then reads the same
    /// fields from memory), or throws `refusal` when the CSRF field is not the session's token
    /// (with a session) or the signed visitor cookie's value (without).
    func checkedForm(_ request: Request, sessionHash: String?, visitorCookie: String, refusal: some Error) async throws -> Request {
        var request = request
        let form = try await PortalForm.read(&request)
        guard try await csrf().accepts(submitted: form.fields[CSRF.fieldName], sessionHash: sessionHash,
                                       visitorCookie: request.cookies[visitorCookie]?.value) else {
            SecurityEvent.csrfRefused.record()
            throw refusal
        }
        return request
    }
}

/// Cross-site request forgery tokens for every portal form that changes something.
///
/// A logged-in visitor's token is a synchronizer token tied to the session: an HMAC of the
/// session's stored hash under a key only this server process knows, so it needs no table and
/// dies with the session. A visitor without a session (login, registration, activation, reset
/// forms) gets a signed double-submit cookie: a random nonce and its HMAC, echoed in a hidden
/// field; a forger can neither read the cookie nor mint a pair the server would accept.
///
/// The key lives in the store (``CSRFKeys``, `server_secrets`), made once by the first process
/// that needs it: several server processes on one database (DESIGN.md, scale-out) accept each
/// other's tokens, and a restart leaves open forms valid.
package struct CSRF: Sendable {
    package static let fieldName = "csrf"
    package static let visitorCookie = "uniti_csrf"
    private let key: SymmetricKey

    package init(key: SymmetricKey = SymmetricKey(size: .bits256)) {
        self.key = key
    }

    /// The token of the forms a logged-in visitor sees.
    package func token(sessionHash: String) -> String {
        SecretTokens.base64url(Data(HMAC<SHA256>.authenticationCode(for: Data("session:\(sessionHash)".utf8), using: key)))
    }

    /// A fresh signed double-submit value (`nonce.signature`) for a visitor without a session.
    package func newVisitorToken() -> String {
        let nonce = SecretTokens.generate()
        return nonce + "." + signature(nonce: nonce)
    }

    /// Whether a cookie value is a double-submit value this server signed.
    package func isSigned(visitorToken: String) -> Bool {
        let parts = visitorToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return Self.constantTimeEqual(signature(nonce: String(parts[0])), String(parts[1]))
    }

    /// Whether a submitted form may act: with a session, its token must be the session's; without
    /// one, it must equal the visitor cookie, and the cookie must carry this server's signature.
    package func accepts(submitted: String?, sessionHash: String?, visitorCookie: String?) -> Bool {
        guard let submitted, !submitted.isEmpty else { return false }
        if let sessionHash {
            return Self.constantTimeEqual(submitted, token(sessionHash: sessionHash))
        }
        guard let visitorCookie, isSigned(visitorToken: visitorCookie) else { return false }
        return Self.constantTimeEqual(submitted, visitorCookie)
    }

    private func signature(nonce: String) -> String {
        SecretTokens.base64url(Data(HMAC<SHA256>.authenticationCode(for: Data("visitor:\(nonce)".utf8), using: key)))
    }

    /// Compares without stopping at the first difference, so timing tells nothing about a token.
    package static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8), b = Array(right.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
