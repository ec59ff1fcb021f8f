import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer
@testable import TrackYourHearingServer

/// The two stores, for tests that run against both.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// A fresh, empty store of this kind: SQLite in a temporary file, PostgreSQL as a new database
    /// in the test process's throwaway cluster (``PostgresCluster``). PostgreSQL missing fails
    /// the test, naming `Scripts/bootstrap --tests`.
    func open() async throws -> OpenedStore {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let location = directory.appendingPathComponent("server.sqlite").path
            return OpenedStore(store: try ServerStore(sqlitePath: location, modules: serverModuleParts), location: location) {
                try? FileManager.default.removeItem(at: directory)
            }
        case .postgres:
            let url = try await PostgresCluster.newDatabase()
            return OpenedStore(store: try await StoreLocation(parsing: url).open(now: Date(), modules: serverModuleParts), location: url) {}
        }
    }
}

extension StoreKind {
    /// Runs `body` on a fresh store of this kind, closed afterwards (also when `body` fails).
    func with(_ body: (OpenedStore) async throws -> Void) async throws {
        let opened = try await open()
        do {
            try await body(opened)
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }
}

/// A store opened for one test; `close()` ends it and removes a SQLite file.
struct OpenedStore {
    let store: ServerStore
    /// What `--database` would say to open the same data.
    let location: String
    let cleanup: @Sendable () -> Void

    func close() async {
        await store.close()
        cleanup()
    }

    /// A second store on the same data, as a second server process opens it.
    func reopen() async throws -> ServerStore {
        try await StoreLocation(parsing: location).open(now: Date(), modules: serverModuleParts)
    }
}

/// The ``ServerStore`` contract, run against SQLite and PostgreSQL alike: what the routes rely on
/// holds for both, so either may be chosen with `--database`.
@Suite("Store contract (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct StoreContractTests {
    let now = TestTime.now

    func with(_ kind: StoreKind, _ body: (ServerStore) async throws -> Void) async throws {
        try await kind.with { try await body($0.store) }
    }

    func user(_ store: ServerStore, _ name: String) async throws -> Int64 {
        try await store.createUser(username: name, email: "\(name)@example.org", passwordHash: "hash-\(name)", language: "en",
                                   pseudonym: "p-\(name)", now: now)
    }

    func study(_ store: ServerStore, _ id: String, access: StudyAccess = .public, rewards: Bool = false) async throws {
        try await store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": "Study \(id)"]), access: access,
                                                modules: [.tyt, .tyh]), now: now)
        if rewards { try await store.setStudySwitches(studyId: id, [TrackYourHearingServerPart.rewardsSwitch.key: true]) }
    }

    func questionnaire(_ store: ServerStore, _ id: String = "daily", version: Int = 1, study: String,
                       module: ModuleID? = nil) async throws -> QuestionnaireImportResult {
        let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: id, version: version).utf8), studyId: study)
        return try await store.addQuestionnaire(document, module: module, now: now)
    }

    /// A public study "open" with the daily questionnaire, and two members, ada and bo.
    func adaAndBoInOpenStudy(_ store: ServerStore) async throws -> (ada: Int64, bo: Int64) {
        try await study(store, "open")
        _ = try await questionnaire(store, study: "open")
        let ada = try await user(store, "ada"), bo = try await user(store, "bo")
        try await store.setMembership(studyId: "open", userId: ada, status: .member, now: now)
        try await store.setMembership(studyId: "open", userId: bo, status: .member, now: now)
        return (ada, bo)
    }

    // MARK: Accounts

    @Test("accounts: unique names and addresses regardless of case, found by either, changed field by field", arguments: StoreKind.allCases)
    func accounts(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let ada = try await user(store, "Ada")
            let bo = try await user(store, "bo")
            await #expect(throws: StoreConflict.usernameTaken) {
                try await store.createUser(username: "ADA", email: "other@example.org", passwordHash: "x", language: "en", pseudonym: "p-x", now: now)
            }
            await #expect(throws: StoreConflict.emailTaken) {
                try await store.createUser(username: "cy", email: "BO@example.org", passwordHash: "x", language: "en", pseudonym: "p-y", now: now)
            }
            #expect(try await store.user(login: "ada@EXAMPLE.org")?.id == ada)
            #expect(try await store.user(login: "ada")?.id == ada)
            #expect(try await store.user(login: "nobody") == nil)
            #expect(try await store.users(offset: 0, limit: 10).users.map(\.username) == ["Ada", "bo"])
            // Paged in the order the accounts were made, with the count of all.
            let second = try await store.users(offset: 1, limit: 1)
            #expect(second.users.map(\.username) == ["bo"] && second.total == 2)
            let past = try await store.users(offset: 2, limit: 1)
            #expect(past.users.isEmpty && past.total == 2)

            var account = try #require(try await store.user(id: ada))
            #expect(!account.activated && account.active && account.gender == .undisclosed && account.language == "en")
            #expect(account.createdAt == now && account.pseudonym == "p-Ada" && account.passwordHash == "hash-Ada")
            try await store.setActivated(userId: ada)
            try await store.setActive(userId: ada, active: false)
            try await store.setPasswordHash(userId: ada, hash: "new-hash", now: now)
            try await store.updateProfile(userId: ada, update: ProfileUpdate(username: "ada2", firstName: "Ada", lastName: "",
                                                                            gender: .female, language: "de"))
            account = try #require(try await store.user(id: ada))
            #expect(account.activated && !account.active && account.passwordHash == "new-hash")
            #expect(account.username == "ada2" && account.firstName == "Ada" && account.lastName == nil)
            #expect(account.gender == .female && account.language == "de")
            await #expect(throws: StoreConflict.usernameTaken) {
                try await store.updateProfile(userId: ada, update: ProfileUpdate(username: "BO"))
            }
            // Keeping one's own name in another case is no conflict.
            try await store.updateProfile(userId: bo, update: ProfileUpdate(username: "Bo"))
            #expect(try await store.user(id: bo)?.username == "Bo")
        }
    }

    @Test("mail tokens: used once, not after expiry, not for another purpose", arguments: StoreKind.allCases)
    func mailTokens(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let id = try await user(store, "ada")
            try await store.storeMailToken(userId: id, purpose: .activation, tokenHash: "t1", expiresAt: now.addingTimeInterval(60), now: now)
            try await store.storeMailToken(userId: id, purpose: .passwordReset, tokenHash: "t2", expiresAt: now.addingTimeInterval(60), now: now)
            #expect(try await store.consumeMailToken(purpose: .passwordReset, tokenHash: "t1", now: now) == nil)
            #expect(try await store.consumeMailToken(purpose: .activation, tokenHash: "t1", now: now) == id)
            #expect(try await store.consumeMailToken(purpose: .activation, tokenHash: "t1", now: now) == nil)
            #expect(try await store.consumeMailToken(purpose: .passwordReset, tokenHash: "t2", now: now.addingTimeInterval(61)) == nil)
        }
    }

    @Test("reset codes: a newer one and a new password cancel the account's open ones; activation codes and other accounts keep theirs",
          .timeLimit(.minutes(10)), arguments: StoreKind.allCases)
    func resetCodesCancelled(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            let later = now.addingTimeInterval(3600)
            try await store.storeMailToken(userId: ada, purpose: .activation, tokenHash: "activation", expiresAt: later, now: now)
            try await store.storeMailToken(userId: ada, purpose: .passwordReset, tokenHash: "r1", expiresAt: later, now: now)
            try await store.storeMailToken(userId: bo, purpose: .passwordReset, tokenHash: "bo1", expiresAt: later, now: now)
            try await store.storeMailToken(userId: ada, purpose: .passwordReset, tokenHash: "r2", expiresAt: later, now: now)
            #expect(try await store.consumeMailToken(purpose: .passwordReset, tokenHash: "r1", now: now) == nil, "the newer code cancelled it")
            #expect(try await store.consumeMailToken(purpose: .passwordReset, tokenHash: "r2", now: now) == ada)
            try await store.storeMailToken(userId: ada, purpose: .passwordReset, tokenHash: "r3", expiresAt: later, now: now)
            try await store.setPasswordHash(userId: ada, hash: "changed", now: now)
            #expect(try await store.consumeMailToken(purpose: .passwordReset, tokenHash: "r3", now: now) == nil, "the new password cancelled it")
            #expect(try await store.consumeMailToken(purpose: .activation, tokenHash: "activation", now: now) == ada)
            #expect(try await store.consumeMailToken(purpose: .passwordReset, tokenHash: "bo1", now: now) == bo)
        }
    }

    @Test("reset codes: using one cancels the account's other open ones (two open at once, as a database from before could hold)",
          .timeLimit(.minutes(10)), arguments: StoreKind.allCases)
    func usedCodeCancelsOthers(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        let ada = try await user(opened.store, "ada")
        // Written as the server before issue 27 left them: both open.
        _ = try ComparisonSumsTests.query(kind, opened, """
            INSERT INTO mail_tokens (token_hash, user_id, purpose, expires_at)
            VALUES ('old-1', \(ada), 'passwordReset', 9999999999), ('old-2', \(ada), 'passwordReset', 9999999999)
            """)
        #expect(try await opened.store.consumeMailToken(purpose: .passwordReset, tokenHash: "old-1", now: now) == ada)
        #expect(try await opened.store.consumeMailToken(purpose: .passwordReset, tokenHash: "old-2", now: now) == nil)
        let codes = try #require(try await opened.store.personalData(userId: ada)).mailedCodes
        #expect(codes.filter { $0.usedAt != nil }.count == 1 && codes.filter { $0.cancelledAt != nil }.count == 1)
        await opened.close()
    }

    @Test("sessions: found until expiry or revocation; rotation replaces both tokens; revoking all but one", arguments: StoreKind.allCases)
    func sessions(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let id = try await user(store, "ada")
            let other = try await user(store, "bo")
            for (index, owner) in [(1, id), (2, id), (3, other)] {
                try await store.createSession(userId: owner, accessHash: "a\(index)", accessExpiresAt: now.addingTimeInterval(60),
                                              refreshHash: "r\(index)", refreshExpiresAt: now.addingTimeInterval(600), now: now)
            }
            let first = try #require(try await store.session(accessHash: "a1", now: now))
            #expect(first.account.id == id)
            #expect(try await store.session(accessHash: "a1", now: now.addingTimeInterval(61)) == nil)
            #expect(try await store.rotateSession(refreshHash: "r1", newAccessHash: "a1b", accessExpiresAt: now.addingTimeInterval(120),
                                                  newRefreshHash: "r1b", refreshExpiresAt: now.addingTimeInterval(900), now: now,
                                                  reuseGrace: 0) == .rotated(userId: id))
            #expect(try await store.rotateSession(refreshHash: "r9", newAccessHash: "x", accessExpiresAt: now,
                                                  newRefreshHash: "y", refreshExpiresAt: now, now: now, reuseGrace: 0) == .refused)
            #expect(try await store.session(accessHash: "a1", now: now) == nil)
            #expect(try await store.session(accessHash: "a1b", now: now)?.sessionId == first.sessionId)
            try await store.revokeSessions(userId: id, except: first.sessionId, now: now)
            #expect(try await store.session(accessHash: "a2", now: now) == nil)
            #expect(try await store.session(accessHash: "a1b", now: now) != nil)
            #expect(try await store.session(accessHash: "a3", now: now) != nil, "another person's session stays")
            try await store.revokeSession(id: first.sessionId, now: now)
            #expect(try await store.session(accessHash: "a1b", now: now) == nil)
            try await store.revokeSessions(userId: other, now: now)
            #expect(try await store.session(accessHash: "a3", now: now) == nil)
        }
    }

    @Test("active portal sessions (the metric): live portal logins only, not app sessions, ended or expired ones; what the store holds is counted",
          arguments: StoreKind.allCases)
    func activePortalSessionsAndContents(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            #expect(try await store.contents() == .none)
            let id = try await user(store, "ada")
            // Portal logins: a refresh token that expired as it was made (PortalSessions.start).
            for index in 1...3 {
                try await store.createSession(userId: id, accessHash: "p\(index)", accessExpiresAt: now.addingTimeInterval(60),
                                              refreshHash: "pr\(index)", refreshExpiresAt: now, now: now)
            }
            try await store.createSession(userId: id, accessHash: "app", accessExpiresAt: now.addingTimeInterval(60),
                                          refreshHash: "appr", refreshExpiresAt: now.addingTimeInterval(600), now: now)
            #expect(try await store.activePortalSessions(now: now) == 3)
            try await store.revokeSession(id: try #require(try await store.session(accessHash: "p1", now: now)).sessionId, now: now)
            #expect(try await store.activePortalSessions(now: now) == 2)
            #expect(try await store.activePortalSessions(now: now.addingTimeInterval(61)) == 0)
            #expect(try await store.contents() == StoreContents(accounts: 1, studies: 0, sheets: 0, records: 0))
        }
    }

    @Test("refresh: the previous token gets a new pair within the grace (the grace counted from its first use), ends the session after it; an older one is refused",
          .timeLimit(.minutes(10)), arguments: StoreKind.allCases)
    func refreshGrace(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let id = try await user(store, "ada")
            try await store.createSession(userId: id, accessHash: "a0", accessExpiresAt: now.addingTimeInterval(60),
                                          refreshHash: "r0", refreshExpiresAt: now.addingTimeInterval(600), now: now)
            func rotate(_ presented: String, to next: String, at seconds: TimeInterval) async throws -> SessionRotation {
                let at = now.addingTimeInterval(seconds)
                return try await store.rotateSession(refreshHash: presented, newAccessHash: "a-\(next)", accessExpiresAt: at.addingTimeInterval(60),
                                                     newRefreshHash: next, refreshExpiresAt: at.addingTimeInterval(600), now: at,
                                                     reuseGrace: 60)
            }
            let session = try #require(try await store.session(accessHash: "a0", now: now)).sessionId
            #expect(try await rotate("r0", to: "r1", at: 10) == .rotated(userId: id))
            // The answer with r1 was lost: r0 again, within the grace, gives the session a new pair.
            #expect(try await rotate("r0", to: "r2", at: 40) == .rotated(userId: id))
            #expect(try await store.session(accessHash: "a-r1", now: now) == nil, "the lost pair still works")
            #expect(try await store.session(accessHash: "a-r2", now: now.addingTimeInterval(40))?.sessionId == session)
            // r1 was never the current token's predecessor in the store's eyes after that: unknown.
            #expect(try await rotate("r1", to: "x", at: 41) == .refused)
            #expect(try await store.session(accessHash: "a-r2", now: now.addingTimeInterval(41)) != nil, "an unknown token ended the session")
            // The grace runs from r0's first use (10 s), not from its last.
            #expect(try await rotate("r0", to: "r3", at: 71) == .revokedAfterReuse(userId: id))
            #expect(try await store.session(accessHash: "a-r2", now: now.addingTimeInterval(71)) == nil, "a reused token left the session open")
            #expect(try await rotate("r2", to: "r4", at: 72) == .refused, "the session's current token survived its revocation")

            // A fresh session: its current token goes on rotating; each previous one is accepted
            // only in its own grace.
            try await store.createSession(userId: id, accessHash: "b0", accessExpiresAt: now.addingTimeInterval(60),
                                          refreshHash: "s0", refreshExpiresAt: now.addingTimeInterval(600), now: now)
            #expect(try await rotate("s0", to: "s1", at: 100) == .rotated(userId: id))
            #expect(try await rotate("s1", to: "s2", at: 200) == .rotated(userId: id))
            #expect(try await rotate("s0", to: "x", at: 201) == .refused, "a token two rotations old is not the previous one")
            #expect(try await store.session(accessHash: "a-s2", now: now.addingTimeInterval(201)) != nil)
            #expect(try await rotate("s2", to: "s3", at: 900) == .refused, "an expired refresh token rotated")
        }
    }

    @Test("a session slides on by at least the step, never past its maximum age; an ended one does not",
          .timeLimit(.minutes(10)), arguments: StoreKind.allCases)
    func sessionRenewal(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let id = try await user(store, "ada")
            try await store.createSession(userId: id, accessHash: "p", accessExpiresAt: now.addingTimeInterval(100),
                                          refreshHash: "q", refreshExpiresAt: now, now: now)
            let session = try #require(try await store.session(accessHash: "p", now: now)).sessionId
            func renew(at seconds: TimeInterval) async throws -> Date? {
                let at = now.addingTimeInterval(seconds)
                return try await store.renewSession(id: session, until: at.addingTimeInterval(100), maximumAge: 300, minimumStep: 10, now: at)
            }
            #expect(try await renew(at: 5) == nil, "moved by less than the step")
            #expect(try await renew(at: 50) == now.addingTimeInterval(150))
            #expect(try await store.session(accessHash: "p", now: now.addingTimeInterval(149)) != nil)
            #expect(try await renew(at: 140) == now.addingTimeInterval(240))
            #expect(try await renew(at: 230) == now.addingTimeInterval(300), "moved past its maximum age")
            #expect(try await renew(at: 290) == nil)
            #expect(try await store.session(accessHash: "p", now: now.addingTimeInterval(300)) == nil)
            try await store.createSession(userId: id, accessHash: "p2", accessExpiresAt: now.addingTimeInterval(100),
                                          refreshHash: "q2", refreshExpiresAt: now, now: now)
            let other = try #require(try await store.session(accessHash: "p2", now: now)).sessionId
            try await store.revokeSession(id: other, now: now)
            #expect(try await store.renewSession(id: other, until: now.addingTimeInterval(200), maximumAge: 300, minimumStep: 10,
                                                 now: now.addingTimeInterval(50)) == nil, "a revoked session was renewed")
            #expect(try await store.renewSession(id: session, until: now.addingTimeInterval(500), maximumAge: 900, minimumStep: 10,
                                                 now: now.addingTimeInterval(400)) == nil, "an ended session was renewed")
        }
    }

    // MARK: Studies

    @Test("studies and memberships: ids unique, fields kept, joining time kept across status changes, requests listed", arguments: StoreKind.allCases)
    func studies(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            try await study(store, "b-open")
            try await study(store, "a-closed", access: .byRequest)
            await #expect(throws: StoreConflict.studyExists) { try await study(store, "a-closed") }
            #expect(try await store.studies().map(\.id) == ["a-closed", "b-open"])
            var changed = try #require(try await store.study(id: "b-open"))
            changed.description = LocalizedText(["en": "About", "de": "Worum es geht"])
            changed.startsAt = now
            changed.schedules = .object(["daily": .array([.string("09:00")])])
            changed.running = false
            try await store.updateStudy(changed, now: now.addingTimeInterval(5))
            #expect(try await store.study(id: "b-open") == changed)
            #expect(try await store.study(id: "missing") == nil)
            // Module switches: on and off per study, kept apart from the other study's.
            let rewards = StudySwitch.Key(module: .tyh, name: "rewards"), other = StudySwitch.Key(module: .tys, name: "sensors")
            #expect(try await store.studySwitches(studyId: "b-open").isEmpty)
            try await store.setStudySwitches(studyId: "b-open", [rewards: true, other: true])
            try await store.setStudySwitches(studyId: "b-open", [rewards: true])
            #expect(try await store.studySwitches(studyId: "b-open") == [rewards, other])
            try await store.setStudySwitches(studyId: "b-open", [other: false])
            #expect(try await store.studySwitches(studyId: "b-open") == [rewards])
            #expect(try await store.studySwitches(studyId: "a-closed").isEmpty)

            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            #expect(try await store.membership(studyId: "a-closed", userId: ada) == MembershipStatus.none)
            try await store.setMembership(studyId: "a-closed", userId: ada, status: .pending, now: now)
            try await store.setMembership(studyId: "a-closed", userId: bo, status: .pending, now: now.addingTimeInterval(1))
            try await store.setMembership(studyId: "b-open", userId: ada, status: .member, now: now)
            #expect(try await store.memberships(userId: ada) == ["a-closed": .pending, "b-open": .member])
            #expect(try await store.joinRequests(studyId: nil, pendingOnly: true, offset: 0, limit: 10).requests.map(\.username) == ["ada", "bo"])
            #expect(try await store.joinRequests(studyId: "b-open", pendingOnly: false, offset: 0, limit: 10).requests.isEmpty)
            try await store.setMembership(studyId: "a-closed", userId: ada, status: .member, now: now.addingTimeInterval(10))
            let requests = try await store.joinRequests(studyId: "a-closed", pendingOnly: false, offset: 0, limit: 10).requests
            #expect(requests.map(\.status) == [.member, .pending])
            // Only the pending ones, and paged with the count of all that match.
            let pending = try await store.joinRequests(studyId: "a-closed", pendingOnly: true, offset: 0, limit: 10)
            #expect(pending.requests.map(\.username) == ["bo"] && pending.total == 1)
            let second = try await store.joinRequests(studyId: nil, pendingOnly: false, offset: 1, limit: 1)
            #expect(second.requests.map(\.username) == ["bo"] && second.total == 2)
            #expect(requests[0].requestedAt == now, "deciding keeps the time of the request")

            // The joining time (read through the member's questionnaires) survives a repeated `member`.
            _ = try await questionnaire(store, study: "b-open")
            try await store.setMembership(studyId: "b-open", userId: ada, status: .member, now: now.addingTimeInterval(100))
            #expect(try await store.memberQuestionnaires(userId: ada).first?.joinedAt == now)
            try await store.setMembership(studyId: "b-open", userId: ada, status: .left, now: now.addingTimeInterval(200))
            #expect(try await store.memberQuestionnaires(userId: ada).isEmpty)
            try await store.setMembership(studyId: "b-open", userId: ada, status: .member, now: now.addingTimeInterval(300))
            #expect(try await store.memberQuestionnaires(userId: ada).first?.joinedAt == now.addingTimeInterval(300))
        }
    }

    // MARK: Questionnaires

    @Test("questionnaires: versions immutable, owned by one study, linked to a module, deactivated once", arguments: StoreKind.allCases)
    func questionnaires(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            try await study(store, "one")
            try await study(store, "two")
            let first = try await questionnaire(store, study: "one")
            #expect(first.versionAdded && first.previousModule == nil)
            #expect(try await questionnaire(store, study: "one").versionAdded == false)
            let changed = try await questionnaire(store, version: 2, study: "one", module: .tyh)
            #expect(changed.versionAdded && changed.module == .tyh && changed.previousModule == first.module)
            #expect(try await store.questionnaire(id: "daily", version: 2)?.version == 2)
            #expect(try await store.questionnaire(id: "daily", version: 3) == nil)
            #expect(try await store.latestQuestionnaires(studyId: "one").map(\.version) == [2])
            #expect(try await store.studyId(ofQuestionnaire: "daily") == "one")
            await #expect(throws: APIError.self) { _ = try await questionnaire(store, study: "two") }

            var other = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(version: 2).utf8), studyId: "one")
            other.definition.title = LocalizedText(["en": "Changed without a new version"])
            await #expect(throws: APIError.self) { _ = try await store.addQuestionnaire(other, module: nil, now: now) }

            _ = try await questionnaire(store, "weekly", study: "one")
            #expect(try await store.questionnaireLinks(studyId: "one").map(\.questionnaireId) == ["daily", "weekly"])
            let off = try await store.setQuestionnaireActive(id: "daily", studyId: "one", active: false, now: now)
            #expect(off?.deactivatedAt == now)
            let again = try await store.setQuestionnaireActive(id: "daily", studyId: "one", active: false, now: now.addingTimeInterval(50))
            #expect(again?.deactivatedAt == now, "a repeated deactivation keeps the first time")
            #expect(try await store.setQuestionnaireActive(id: "daily", studyId: "two", active: true, now: now) == nil)
            #expect(try await store.setQuestionnaireActive(id: "daily", studyId: "one", active: true, now: now)?.isActive == true)
            #expect(try await store.questionnaireLink(id: "daily")?.module == .tyh)
        }
    }

    // MARK: Sheets

    @Test("sheets: stored once per id, paged newest first, pulled by cursor, averaged per participant, exported in order", arguments: StoreKind.allCases)
    func sheets(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let (ada, bo) = try await adaAndBoInOpenStudy(store)
            let early = sheet(loudness: 20, startedAt: "2027-01-10T09:00:00+01:00")
            let late = sheet(loudness: 60, startedAt: "2027-01-20T09:00:00+01:00")
            let stored = try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: early, studyId: "open"),
                                                                           ValidatedSheet(sheet: late, studyId: "open")], receivedAt: now)
            #expect(stored.outcomes == [.stored, .stored])
            #expect(try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: early, studyId: "open")], receivedAt: now).outcomes == [.duplicate])
            // The same client id from another person is another sheet.
            #expect(try await store.storeSheets(userId: bo, sheets: [ValidatedSheet(sheet: early, studyId: "open")], receivedAt: now).outcomes == [.stored])

            let page = try await store.sheets(userId: ada, offset: 0, limit: 1)
            #expect(page.total == 2 && page.sheets.map(\.sheet.id) == [late.id])
            #expect(page.sheets[0].sheet == late && page.sheets[0].studyId == "open")
            #expect(try await store.sheets(userId: ada, offset: 1, limit: 5).sheets.map(\.sheet.id) == [early.id])

            let changes = try await store.sheetChanges(userId: ada, after: 0, limit: 1)
            #expect(try changes.sheets.map { try $0.decoded().sheet.id } == [early.id] && changes.more)
            let rest = try await store.sheetChanges(userId: ada, after: changes.cursor, limit: 5)
            #expect(try rest.sheets.map { try $0.decoded().sheet.id } == [late.id] && !rest.more)
            #expect(try await store.sheetChanges(userId: ada, after: rest.cursor, limit: 5).sheets.isEmpty)

            let means = try await store.participantMeans(questionnaireId: "daily", studyId: "open", label: "loudness", from: nil, to: nil)
            #expect(means == [ada: 40, bo: 20])
            let january15 = OffsetTimestamp(parsing: "2027-01-15T00:00:00+01:00")!.date
            #expect(try await store.participantMeans(questionnaireId: "daily", studyId: "open", label: "loudness",
                                                     from: january15, to: nil) == [ada: 60])
            #expect(try await store.participantMeans(questionnaireId: "daily", studyId: "open", label: "loudness",
                                                     from: nil, to: january15) == [ada: 20, bo: 20])

            let rows = try await store.exportRows(studyId: "open")
            #expect(rows.map(\.participant) == ["p-ada", "p-ada", "p-ada", "p-ada", "p-bo", "p-bo"])
            #expect(rows.prefix(2).map(\.label) == ["loudness", "mood"])
            #expect(rows.prefix(2).map(\.value) == ["20", "2"])
            #expect(rows[0].microphoneDbfs == -42.5 && rows[0].sheetId == early.id.uuidString.lowercased())
        }
    }

    @Test("""
        an upload mixing new and stored sheets: outcomes in order, new ones stored with every column as sent and ids in batch \
        order, answers and totals of the stored one counted once
        """, arguments: StoreKind.allCases)
    func uploadColumns(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            try await study(store, "open")
            _ = try await questionnaire(store, study: "open")
            let ada = try await user(store, "ada")
            let before = sheet(loudness: 30)
            #expect(try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: before, studyId: "open")], receivedAt: now).outcomes == [.stored])
            let started = OffsetTimestamp(parsing: "2027-01-16T08:00:00-05:00")!
            let answered = OffsetTimestamp(parsing: "2027-01-16T08:01:30-05:00")!
            let text = "a \"quoted\", comma\nand ünïcode"
            var partial = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                      answers: ["loudness": Answer(value: .number(0.1), answeredAt: answered),
                                                "note": Answer(value: .text(text), answeredAt: answered),
                                                "symptoms": Answer(value: .choices([3, 1]), answeredAt: answered)],
                                      startedAt: started, clientVersion: "uniti-test 1", isPartial: true)
            partial.remindedAt = OffsetTimestamp(parsing: "2027-01-16T07:55:00-05:00")!
            let empty = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1, startedAt: started,
                                    endedAt: answered, clientVersion: "uniti-test 1")
            let outcomes = try await store.storeSheets(userId: ada, sheets: [
                ValidatedSheet(sheet: partial, studyId: "open"),
                ValidatedSheet(sheet: before, studyId: "open"),
                ValidatedSheet(sheet: empty, studyId: "open"),
            ], receivedAt: now.addingTimeInterval(0.5)).outcomes
            #expect(outcomes == [.stored, .duplicate, .stored])

            let rows = try await store.database.rows("""
                SELECT id, client_id, study_id, questionnaire_id, questionnaire_version, started_at, ended_at, received_at, sheet,
                       finished_at, is_partial FROM answer_sheets WHERE user_id = \(ada) ORDER BY id
                """)
            #expect(try rows.map { try $0["client_id"] as String } == [before, partial, empty].map { $0.id.uuidString.lowercased() })
            let row = rows[1]
            #expect(try row["study_id"] as String == "open" && row["questionnaire_id"] as String == "daily")
            #expect(try row["questionnaire_version"] as Int == 1 && row["is_partial"] as Bool)
            #expect(try row["started_at"] as Date == started.date && row["ended_at"] as Date? == nil)
            #expect(try row["received_at"] as Date == now.addingTimeInterval(0.5))
            #expect(try row["finished_at"] as String == started.text)
            #expect(try JSONCoding.decode(AnswerSheet.self, from: row["sheet"]) == partial)
            #expect(try rows[2]["ended_at"] as Date? == answered.date && rows[2]["finished_at"] as String == answered.text)
            #expect(try !(rows[2]["is_partial"] as Bool))

            let answers = try await store.database.rows("""
                SELECT position, label, value, number, answered_at, user_id, questionnaire_id, started_at FROM answers
                WHERE sheet_id = \(try row["id"] as Int64) ORDER BY position
                """)
            #expect(try answers.map { try $0["position"] as Int } == [0, 1, 2])
            #expect(try answers.map { try $0["label"] as String } == ["loudness", "note", "symptoms"])
            #expect(try answers.map { try $0["value"] as String } == ["0.1", try JSONCoding.string(text), "[3,1]"])
            #expect(try answers.map { try $0["number"] as Double? } == [0.1, nil, nil])
            #expect(try answers.allSatisfy { try $0["answered_at"] as String == answered.text && $0["user_id"] as Int64 == ada })
            #expect(try answers.allSatisfy { try $0["questionnaire_id"] as String == "daily" && $0["started_at"] as Date == started.date })
            let total = try await store.database.row("SELECT COUNT(*) AS answers FROM answers WHERE user_id = \(ada)")
            #expect(try total?["answers"] as Int? == 2 + 3, "the stored sheet's two answers once, the new sheet's three")

            let totals = try await store.database.rows("""
                SELECT label, total, count, first_started, last_started FROM comparison_totals WHERE user_id = \(ada) ORDER BY label
                """)
            #expect(try totals.map { try $0["label"] as String } == ["loudness", "mood"], "only numeric answers have totals")
            #expect(try abs(totals[0]["total"] as Double - 30.1) < 1e-9 && totals[0]["count"] as Int == 2)
            #expect(try totals[0]["first_started"] as Date == before.startedAt.date && totals[0]["last_started"] as Date == started.date)
            #expect(try totals[1]["total"] as Double == 2 && totals[1]["count"] as Int == 1)
        }
    }

    @Test("a sheet of 1,201 answers is stored whole: every answer, every total", arguments: StoreKind.allCases)
    func manyAnswers(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let (ada, _) = try await adaAndBoInOpenStudy(store)
            var big = sheet()
            big.answers = Dictionary(uniqueKeysWithValues: (0...1200).map { ("item\($0)", Answer(value: .integer($0), answeredAt: big.startedAt)) })
            #expect(try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: big, studyId: "open")], receivedAt: now).ids.count == 1)
            let answers = try await store.database.row("SELECT COUNT(*) AS count, SUM(number) AS total FROM answers WHERE user_id = \(ada)")
            #expect(try answers?["count"] as Int? == 1201 && answers?["total"] as Double? == 1200 * 1201 / 2)
            let totals = try await store.database.row("SELECT COUNT(*) AS count, SUM(total) AS total FROM comparison_totals WHERE user_id = \(ada)")
            #expect(try totals?["count"] as Int? == 1201 && totals?["total"] as Double? == 1200 * 1201 / 2)
        }
    }

    @Test("a stored sheet is the JSON text the server has always written for it, byte for byte", arguments: StoreKind.allCases)
    func storedSheetText(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let (ada, _) = try await adaAndBoInOpenStudy(store)
            let at = OffsetTimestamp(parsing: "2027-01-16T08:01:30-05:00")!
            var sent = AnswerSheet(id: UUID(uuidString: "0a1b2c3d-0000-4000-8000-00000000002a")!, questionnaireID: "daily", questionnaireVersion: 1,
                                   answers: ["loudness": Answer(value: .number(0.1), answeredAt: at), "mood": Answer(value: .integer(2), answeredAt: at),
                                             "note": Answer(value: .text("a/b \"q\" ü\n"), answeredAt: at),
                                             "symptoms": Answer(value: .choices([3, 1]), answeredAt: at)],
                                   startedAt: OffsetTimestamp(parsing: "2027-01-16T08:00:00-05:00")!, endedAt: at, clientVersion: "uniti 0.2.0",
                                   sensors: SensorReadings(microphone: MicrophoneReading(dbfs: -42.5, measuredAt: at)), language: "de",
                                   owner: .tyt, remindedAt: OffsetTimestamp(parsing: "2027-01-16T07:55:00-05:00")!)
            sent.promptId = "p-1"
            _ = try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: sent, studyId: "open")], receivedAt: now)
            let stored: String? = try await store.database.row("SELECT sheet FROM answer_sheets WHERE user_id = \(ada)")?["sheet"]
            #expect(stored == #"""
                {"answers":{"loudness":{"answeredAt":"2027-01-16T08:01:30-05:00","value":0.1},"mood":{"answeredAt":"2027-01-16T08:01:30-05:00","value":2},\#
                "note":{"answeredAt":"2027-01-16T08:01:30-05:00","value":"a/b \"q\" ü\n"},"symptoms":{"answeredAt":"2027-01-16T08:01:30-05:00","value":[3,1]}},\#
                "clientVersion":"uniti 0.2.0","endedAt":"2027-01-16T08:01:30-05:00","id":"0A1B2C3D-0000-4000-8000-00000000002A","isPartial":false,\#
                "language":"de","owner":"tyt","promptId":"p-1","questionnaireID":"daily","questionnaireVersion":1,"remindedAt":"2027-01-16T07:55:00-05:00",\#
                "sensors":{"microphone":{"dbfs":-42.5,"measuredAt":"2027-01-16T08:01:30-05:00"}},"startedAt":"2027-01-16T08:00:00-05:00"}
                """#)
        }
    }

    @Test("an upload's changes cursor passes exactly the sheets it stored, and there is none when another sheet of the person lies after the caller's cursor",
          arguments: StoreKind.allCases)
    func uploadChangesCursor(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let (ada, bo) = try await adaAndBoInOpenStudy(store)
            func upload(_ person: Int64, _ sheets: [AnswerSheet]) async throws -> [Int64] {
                try await store.storeSheets(userId: person, sheets: sheets.map { ValidatedSheet(sheet: $0, studyId: "open") },
                                            receivedAt: now).ids
            }
            // Nothing pulled yet (cursor 0): the phone's two sheets are all there is after it.
            let phone = [sheet(loudness: 10), sheet(loudness: 20)]
            let first = try #require(try await store.changesCursor(userId: ada, after: 0, stored: try await upload(ada, phone)))
            #expect(try await store.sheetChanges(userId: ada, after: first, limit: 10).sheets.isEmpty)
            #expect(try await store.sheetChanges(userId: ada, after: 0, limit: 10).cursor == first)
            // Someone else's sheet is not the person's: it does not stop the cursor.
            _ = try await upload(bo, [sheet(loudness: 30)])
            let second = try #require(try await store.changesCursor(userId: ada, after: first, stored: try await upload(ada, [sheet(loudness: 40)])))
            #expect(second > first)
            #expect(try await store.sheetChanges(userId: ada, after: second, limit: 10).sheets.isEmpty)
            // The laptop's sheet lies after the phone's cursor: the phone's next upload gets no
            // cursor, so it pulls and finds both.
            let laptop = sheet(loudness: 50)
            _ = try await upload(ada, [laptop])
            let third = sheet(loudness: 60)
            #expect(try await store.changesCursor(userId: ada, after: second, stored: try await upload(ada, [third])) == nil)
            #expect(try await store.sheetChanges(userId: ada, after: second, limit: 10).sheets.map { try $0.decoded().sheet.id }
                    == [laptop.id, third.id])
            // A batch all duplicates stores nothing, and nothing lies after the latest cursor.
            let latest = try await store.sheetChanges(userId: ada, after: 0, limit: 10).cursor
            #expect(try await store.changesCursor(userId: ada, after: latest, stored: try await upload(ada, [third])) == latest)
            // A duplicate stored after the cursor (sent before, its answer lost) is not stored now: no cursor.
            let pastLaptop = try await store.sheetChanges(userId: ada, after: second, limit: 1).cursor
            #expect(try await store.changesCursor(userId: ada, after: pastLaptop, stored: try await upload(ada, [third, sheet()])) == nil)
        }
    }

    @Test("""
        an upload gets no changes cursor when another device's sheet came in while one of the upload's own was deleted, \
        though the number of the person's sheets after the cursor is the upload's again
        """, arguments: StoreKind.allCases)
    func uploadChangesCursorComparesIds(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let (ada, _) = try await adaAndBoInOpenStudy(store)
            try await study(store, "other")
            _ = try await questionnaire(store, "weekly", study: "other")
            try await store.setMembership(studyId: "other", userId: ada, status: .member, now: now)
            // The phone's upload: one sheet of each study, after cursor 0.
            let phone = try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: sheet(questionnaire: "weekly"), studyId: "other"),
                                                                          ValidatedSheet(sheet: sheet(loudness: 10), studyId: "open")],
                                                    receivedAt: now).ids
            // Before the phone asks for its cursor: the laptop's sheet comes in, and Ada leaves
            // the other study with her answers, which deletes the phone's first sheet.
            let laptop = sheet(loudness: 20)
            _ = try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: laptop, studyId: "open")], receivedAt: now)
            try await store.leaveStudy(userId: ada, studyId: "other", deleteAnswers: true, now: now)
            let after = try await store.database.row("SELECT COUNT(*) AS count FROM answer_sheets WHERE user_id = \(ada) AND id > 0")
            #expect(try after?["count"] as Int? == phone.count, "the count alone cannot tell the laptop's sheet from the deleted one")
            // A cursor past the laptop's sheet would hide it from the phone for good.
            #expect(try await store.changesCursor(userId: ada, after: 0, stored: phone) == nil)
            #expect(try await store.sheetChanges(userId: ada, after: 0, limit: 10).sheets.map { try $0.decoded().sheet.id }.contains(laptop.id))
        }
    }

    @Test("rewards read the finished Track Your Hearing sheets of reward studies only", arguments: StoreKind.allCases)
    func rewards(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            try await study(store, "hearing", rewards: true)
            try await study(store, "plain")
            _ = try await questionnaire(store, "hear", study: "hearing", module: .tyh)
            _ = try await questionnaire(store, "daily", study: "hearing", module: .tyt)
            _ = try await questionnaire(store, "plain-q", study: "plain", module: .tyh)
            let ada = try await user(store, "ada")
            for id in ["hearing", "plain"] { try await store.setMembership(studyId: id, userId: ada, status: .member, now: now) }
            var partial = sheet(questionnaire: "hear")
            partial.isPartial = true
            var counted = sheet(questionnaire: "hear")
            let reminded = counted.startedAt.date.addingTimeInterval(-600)
            counted.remindedAt = OffsetTimestamp(reminded, in: TimeZone(secondsFromGMT: 3600)!)
            _ = try await store.storeSheets(userId: ada, sheets: [
                ValidatedSheet(sheet: counted, studyId: "hearing"),
                ValidatedSheet(sheet: partial, studyId: "hearing"),
                ValidatedSheet(sheet: sheet(questionnaire: "daily"), studyId: "hearing"),
                ValidatedSheet(sheet: sheet(questionnaire: "plain-q"), studyId: "plain"),
            ], receivedAt: now)
            let rewards = try await store.rewardSheets(userId: ada)
            #expect(rewards.map(\.studyId) == ["hearing"])
            #expect(rewards.first?.sheets.map(\.id) == [counted.id])
            #expect(rewards.first?.sheets.first?.remindedAt == reminded)
            #expect(rewards.first?.sheets.first?.finishedAt == counted.endedAt)
        }
    }

    // MARK: Records and resources

    @Test("records: newest wins, an equal time keeps the stored one, tombstones travel, the cursor pages", arguments: StoreKind.allCases)
    func records(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            func change(_ id: String, _ seconds: Double, _ note: String?, module: String = "tn") -> RecordChange {
                let time = now.addingTimeInterval(seconds)
                return RecordChange(upsert: ModuleRecordUpsert(moduleId: module, clientId: id, updatedAt: Timestamps.formatMilliseconds(time),
                                                               deleted: note == nil ? true : nil,
                                                               payload: note.map { .object(["note": .string($0)]) }),
                                    updatedAt: time)
            }
            #expect(try await store.applyRecords(userId: ada, changes: [change("e1", 10, "first"), change("e2", 10, "two"),
                                                                        change("s1", 10, "sound", module: "son")]) == [.applied, .applied, .applied])
            #expect(try await store.applyRecords(userId: ada, changes: [change("e1", 5, "older"), change("e1", 10, "same time"),
                                                                        change("e1", 20, "newer")]) == [.stale, .stale, .applied])
            #expect(try await store.applyRecords(userId: ada, changes: [change("e2", 30, nil)]) == [.applied])
            _ = try await store.applyRecords(userId: bo, changes: [change("e1", 99, "bo's")])

            let all = try await store.records(userId: ada, after: 0, moduleId: nil, updatedSince: nil, limit: 10)
            #expect(all.records.map(\.clientId) == ["s1", "e1", "e2"], "in the order they last changed")
            #expect(all.records[1].payload == .object(["note": .string("newer")]))
            #expect(all.records[2].deleted && all.records[2].payload == nil)
            #expect(all.records[1].updatedAt == Timestamps.formatMilliseconds(now.addingTimeInterval(20)))
            let first = try await store.records(userId: ada, after: 0, moduleId: nil, updatedSince: nil, limit: 2)
            #expect(first.more && first.records.count == 2)
            let second = try await store.records(userId: ada, after: first.cursor, moduleId: nil, updatedSince: nil, limit: 2)
            #expect(!second.more && second.records.map(\.clientId) == ["e2"])
            #expect(try await store.records(userId: ada, after: 0, moduleId: .son, updatedSince: nil, limit: 10).records.map(\.clientId) == ["s1"])
            #expect(try await store.records(userId: ada, after: 0, moduleId: nil, updatedSince: now.addingTimeInterval(15),
                                            limit: 10).records.map(\.clientId) == ["e1", "e2"])
            #expect(try await store.records(userId: bo, after: 0, moduleId: nil, updatedSince: nil, limit: 10).records.map(\.clientId) == ["e1"])
        }
    }

    @Test("module resources: equal content changes nothing, new content replaces", arguments: StoreKind.allCases)
    func resources(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let catalogue: JSONValue = .object(["sounds": .array([.string("rain")])])
            #expect(try await store.putResource(moduleId: .son, name: "sounds", content: catalogue, now: now))
            #expect(try await store.putResource(moduleId: .son, name: "sounds", content: catalogue, now: now.addingTimeInterval(9)) == false)
            #expect(try await store.resource(moduleId: .son, name: "sounds")?.updatedAt == now)
            #expect(try await store.putResource(moduleId: .son, name: "sounds", content: .object(["sounds": .array([])]), now: now.addingTimeInterval(9)))
            #expect(try await store.resource(moduleId: .son, name: "sounds")?.updatedAt == now.addingTimeInterval(9))
            _ = try await store.putResource(moduleId: .son, name: "a-list", content: .array([]), now: now)
            #expect(try await store.resources().map(\.name) == ["a-list", "sounds"])
            #expect(try await store.resource(moduleId: .tyt, name: "sounds") == nil)
        }
    }

    // MARK: What the portal added

    @Test("server secrets are made once and then the same; study-password failures throttle after the free tries and clear", arguments: StoreKind.allCases)
    func secretsAndStudyPasswords(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let first = try await store.secret(named: "csrf", now: TestTime.now, orStore: { Data([1, 2, 3]) })
            let second = try await store.secret(named: "csrf", now: TestTime.now, orStore: { Data([9, 9, 9]) })
            #expect(first == Data([1, 2, 3]) && second == first)

            try await study(store, "secret", access: .password)
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            let rule = ThrottleRule(freeAttempts: 2, window: 600, baseDelay: 2, maximumDelay: 60)
            let generous = ThrottleRule(freeAttempts: 100)
            var waits: [Int?] = []
            for _ in 0..<4 {
                waits.append(try await store.startStudyPasswordAttempt(userId: ada, studyId: "secret", rule: rule, studyRule: generous, now: now))
            }
            #expect(waits[0] == nil && waits[1] == nil, "the free tries")
            #expect(waits.dropFirst(2).allSatisfy { $0 != nil }, "\(waits)")
            #expect(try await store.startStudyPasswordAttempt(userId: bo, studyId: "secret", rule: rule, studyRule: generous, now: now) == nil,
                    "another person counts apart")
            try await store.clearStudyPasswordFailures(userId: ada, studyId: "secret")
            #expect(try await store.startStudyPasswordAttempt(userId: ada, studyId: "secret", rule: rule, studyRule: generous, now: now) == nil)
        }
    }

    @Test("study-password failures also count per study across people: fresh people get no fresh tries, a right one takes its try back",
          .timeLimit(.minutes(10)), arguments: StoreKind.allCases)
    func studyPasswordsPerStudy(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            try await study(store, "secret", access: .password)
            try await study(store, "other", access: .password)
            var people: [Int64] = []
            for index in 0..<5 { people.append(try await user(store, "p\(index)")) }
            let person = ThrottleRule(freeAttempts: 5, window: 600, baseDelay: 2, maximumDelay: 60)
            let perStudy = ThrottleRule(freeAttempts: 3, window: 600, baseDelay: 2, maximumDelay: 60)
            func attempt(_ index: Int, _ studyId: String = "secret", at time: Date? = nil) async throws -> Int? {
                try await store.startStudyPasswordAttempt(userId: people[index], studyId: studyId, rule: person, studyRule: perStudy, now: time ?? now)
            }
            for index in 0..<3 { #expect(try await attempt(index) == nil, "the study's free tries, by three people") }
            #expect(try await attempt(3) == 2, "a fourth person waits: the study's count, not the person's")
            #expect(try await attempt(3, "other") == nil, "another study counts apart")
            #expect(try await store.personalData(userId: people[3])?.studyPasswordFailures.map(\.studyId) == ["other"],
                    "a refused try is counted nowhere")
            try await store.clearStudyPasswordFailures(userId: people[2], studyId: "secret")
            #expect(try await attempt(4) == nil, "the right password took its try back from the study's count")
            #expect(try await attempt(4, at: now.addingTimeInterval(1)) == 1)
        }
    }

    @Test("throttle counts: free tries then a doubling wait per key, a step waits for its slowest key and counts under all, clearing and taking back, tidied by each rule's own time",
          .timeLimit(.minutes(10)), arguments: StoreKind.allCases)
    func throttleCounts(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let rule = ThrottleRule(freeAttempts: 3, window: 600, baseDelay: 2, maximumDelay: 60)
            func attempt(_ keys: [String], at time: Date? = nil, rule: ThrottleRule = rule) async throws -> Int? {
                try await store.startThrottledAttempt(keys.map { ThrottleKey($0, rule) }, now: time ?? now)
            }
            var waits: [Int?] = []
            for _ in 0..<5 { waits.append(try await attempt(["ada"])) }
            #expect(waits == [nil, nil, nil, 2, 2], "three free tries, then a wait that does not grow while refused")
            #expect(try await attempt(["ada"], at: now.addingTimeInterval(2.5)) == nil, "the wait is over: one more try, counted")
            #expect(try await attempt(["ada"], at: now.addingTimeInterval(2.6)) == 4, "the delay doubled")
            #expect(try await attempt(["bo"]) == nil, "another key counts apart")

            // A step with two keys waits while either must, and then counts under neither.
            #expect(try await attempt(["bo", "ada"], at: now.addingTimeInterval(3)) == 4)
            for _ in 0..<2 {
                #expect(try await attempt(["bo"], at: now.addingTimeInterval(3)) == nil, "bo's refused step was not counted: two more free tries")
            }
            #expect(try await attempt(["bo"], at: now.addingTimeInterval(3)) != nil)

            try await store.finishThrottledAttempt(clearing: ["ada"], takingBack: ["bo"])
            #expect(try await attempt(["ada"], at: now.addingTimeInterval(3)) == nil, "clearing forgets the count")
            #expect(try await attempt(["bo"], at: now.addingTimeInterval(3)) == nil, "taking back makes room for one try")
            #expect(try await attempt(["bo"], at: now.addingTimeInterval(3)) != nil, "and only one")

            // Guesses arriving at once: exactly the free tries pass, whatever the interleaving.
            let results = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<12 { group.addTask { try await attempt(["cy", "client"]) } }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(results.filter { $0 == nil }.count == 3, "\(results)")

            // Each count carries its own rule's end: a new count tidies only what is over.
            let hourly = ThrottleRule(freeAttempts: 1, window: 3600, baseDelay: 3600, maximumDelay: 3600)
            #expect(try await attempt(["mail"], rule: hourly) == nil)
            let later = now.addingTimeInterval(rule.window + rule.maximumDelay + 10)
            #expect(try await attempt(["dee"], at: later) == nil)
            for _ in 0..<3 { #expect(try await attempt(["cy"], at: later) == nil, "a count its rule has forgotten starts anew") }
            #expect(try await attempt(["cy"], at: later) != nil)
            #expect(try await attempt(["mail"], at: later, rule: hourly) != nil, "the hourly count outlives the shorter rule's tidying")
        }
    }

    @Test("one record by its address, and a person's data without secrets and without anyone else's", arguments: StoreKind.allCases)
    func recordLookupAndPersonalData(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            try await study(store, "open")
            _ = try await questionnaire(store, study: "open")
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            try await store.setMembership(studyId: "open", userId: ada, status: .member, now: now)
            let mine = sheet()
            _ = try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: mine, studyId: "open")], receivedAt: now)
            _ = try await store.storeSheets(userId: bo, sheets: [ValidatedSheet(sheet: sheet(), studyId: "open")], receivedAt: now)
            let time = now.addingTimeInterval(1)
            let upsert = ModuleRecordUpsert(moduleId: "tn", clientId: "event:1", updatedAt: Timestamps.formatMilliseconds(time),
                                            payload: .object(["title": .string("ENT")]))
            _ = try await store.applyRecords(userId: ada, changes: [RecordChange(upsert: upsert, updatedAt: time)])
            #expect(try await store.record(userId: ada, moduleId: "tn", clientId: "event:1")?.payload == upsert.payload)
            #expect(try await store.record(userId: bo, moduleId: "tn", clientId: "event:1") == nil)
            try await store.createSession(userId: ada, accessHash: "secret-access", accessExpiresAt: now.addingTimeInterval(60),
                                          refreshHash: "secret-refresh", refreshExpiresAt: now.addingTimeInterval(600), now: now)

            let data = try #require(try await store.personalData(userId: ada))
            #expect(data.account.username == "ada" && data.memberships.map(\.studyId) == ["open"])
            #expect(data.sheets.map(\.sheet.id) == [mine.id] && data.records.map(\.clientId) == ["event:1"])
            #expect(data.sessions.count == 1)
            let encoded = String(decoding: try JSONEncoder().encode(data), as: UTF8.self)
            for secret in ["hash-ada", "secret-access", "secret-refresh"] { #expect(!encoded.contains(secret)) }
            #expect(try await store.personalData(userId: 999) == nil)
        }
    }
}
