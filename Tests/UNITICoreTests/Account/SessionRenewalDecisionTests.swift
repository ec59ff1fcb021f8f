import Foundation
import Testing
import UNITIProtocol
@testable import UNITICore

/// When the client renews its access token (``Session/needsRenewal(at:)``), decided on the
/// device's own clock: a tenth of the token's lifetime before its end, at most a minute.
@Suite("Session renewal: when", .timeLimit(.minutes(10)))
struct SessionRenewalDecisionTests {
    let obtained = Date(timeIntervalSince1970: 1_790_000_000)

    func session(lifetime: Int?, expiresAt: String = "2026-09-21T15:13:20Z") -> Session {
        Session(username: "eve", tokens: SessionTokens(accessToken: "a", refreshToken: "r", expiresAt: expiresAt,
                                                      refreshExpiresAt: "2026-10-22T12:13:20Z", expiresIn: lifetime),
                obtainedAt: obtained)
    }

    @Test("an hour's token is renewed in its last minute, not before")
    func hourToken() {
        let hour = session(lifetime: 3600)
        #expect(!hour.needsRenewal(at: obtained))
        #expect(!hour.needsRenewal(at: obtained.addingTimeInterval(3539)))
        #expect(hour.needsRenewal(at: obtained.addingTimeInterval(3540)))
        #expect(hour.needsRenewal(at: obtained.addingTimeInterval(7200)), "an ended token is renewed too")
    }

    @Test("a short token is renewed in the last tenth of its life, so it is not renewed before every request")
    func shortToken() {
        let short = session(lifetime: 3)
        #expect(!short.needsRenewal(at: obtained.addingTimeInterval(2.6)))
        #expect(short.needsRenewal(at: obtained.addingTimeInterval(2.75)))
        let tenMinutes = session(lifetime: 600)
        #expect(!tenMinutes.needsRenewal(at: obtained.addingTimeInterval(539)))
        #expect(tenMinutes.needsRenewal(at: obtained.addingTimeInterval(540)))
    }

    @Test("the device's clock counts from when it asked, whatever time the server's expiry names")
    func deviceClockNotServerTime() {
        // The server's clock is a day ahead of the device's: its expiry lies in the device's future
        // by a day and an hour, yet the token is renewed an hour after it was obtained here.
        let skewed = session(lifetime: 3600, expiresAt: "2026-09-22T15:13:20Z")
        #expect(skewed.needsRenewal(at: obtained.addingTimeInterval(3540)))
        // And a server a day behind does not make every request renew.
        let behind = session(lifetime: 3600, expiresAt: "2026-09-20T15:13:20Z")
        #expect(!behind.needsRenewal(at: obtained.addingTimeInterval(60)))
    }

    @Test("a session stored before renewal existed goes by the server's expiry, a minute early; an unreadable one waits for a 401")
    func storedByOlderVersion() throws {
        var old = session(lifetime: nil, expiresAt: "2026-09-21T15:13:20Z")  // obtained + 1 h
        old.obtainedAt = nil
        #expect(!old.needsRenewal(at: obtained.addingTimeInterval(3539)))
        #expect(old.needsRenewal(at: obtained.addingTimeInterval(3540)))
        old.expiresAt = "soon"
        #expect(!old.needsRenewal(at: obtained.addingTimeInterval(99_999)))
        // The JSON such a version stored still reads.
        let stored = #"{"username":"eve","accessToken":"a","refreshToken":"r","expiresAt":"2026-09-21T15:13:20Z","refreshExpiresAt":"2026-10-22T12:13:20Z"}"#
        let decoded = try JSONDecoder().decode(Session.self, from: Data(stored.utf8))
        #expect(decoded.obtainedAt == nil && decoded.accessLifetime == nil && decoded.refreshToken == "r")
    }
}
