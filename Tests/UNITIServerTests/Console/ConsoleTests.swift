import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import UNITITesting
import UNITIProtocol
@testable import UNITIServer

// MARK: Fixture

/// A console member as a test signs in with: address, password and the authenticator's secret.
struct StaffLogin: Sendable {
    var id: Int64
    var email: String
    var password: String
    var totp: TOTP
}

/// An in-process server on either store with a hand-moved clock, for the console's tests.
struct ConsoleFixture {
    let environment: ServerEnvironment
    let clock: ManualServerClock
    var store: ServerStore { environment.store }

    init(environment: ServerEnvironment, clock: ManualServerClock) {
        self.environment = environment
        self.clock = clock
    }

    /// On a store of either kind (the contract tests' ``StoreKind``).
    init(store: ServerStore) {
        let clock = ManualServerClock()
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-console-spool-\(UUID().uuidString)")
        self.init(environment: ServerEnvironment(store: store, mailer: SpoolMailer(directory: spool, clock: clock), clock: clock,
                                                 passwords: PasswordHasher(cost: 4)), clock: clock)
    }

    /// On a ``TestServer`` (its spool, so participants' mails are found as usual).
    init(server: TestServer) {
        self.init(environment: server.environment, clock: server.clock)
    }

    func run(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await runInProcess(environment, body)
    }

    /// A staff member added as `staff add` adds one, enrolled with the code from the mailed link.
    func enrolledStaff(_ name: String, admin: Bool = false) async throws -> StaffLogin {
        let service = StaffService(environment: environment)
        let added = try await service.add(name: name, email: "\(name)@team.example.org", admin: admin, by: .operator)
        let code = try #require(Self.code(in: added.mail.body))
        var generator = SystemRandomNumberGenerator()
        let secret = TOTP.newSecret(using: &generator)
        let totp = TOTP(secret: secret)
        _ = try await service.enrol(code: code, password: "staff password", secret: Base32.encode(secret),
                                    totpCode: totp.code(at: clock.now()))
        return StaffLogin(id: added.id, email: added.mail.to, password: "staff password", totp: totp)
    }

    /// The code on the mail's indented line.
    static func code(in body: String) -> String? {
        body.split(separator: "\n").first { $0.hasPrefix("    ") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Signs in through the page with the code of the next time step (each code is taken once).
    @discardableResult
    func signIn(_ browser: PortalBrowser, _ login: StaffLogin, code: String? = nil) async throws -> TestResponse {
        clock.advance(by: 30)
        return try await browser.submit("/console/signin", to: "/console/signin",
                                        ["email": login.email, "password": login.password, "code": code ?? login.totp.code(at: clock.now())])
    }

    func study(_ id: String) async throws {
        try await StudyAdministration(store: store, actor: .operator, now: clock.now())
            .create(id, StudySettings(title: LocalizedText(["en": "Study \(id)"]), access: .byRequest, modules: ["tyt"]))
    }

    func role(_ role: StudyRole, _ login: StaffLogin, _ study: String) async throws {
        let member = try #require(try await store.staffMember(id: login.id))
        try await StudyAdministration(store: store, actor: .operator, now: clock.now()).setRole(role, of: member, in: study)
    }
}

// MARK: TOTP

@Suite("Console: TOTP (RFC 6238)", .timeLimit(.minutes(10)))
struct TOTPTests {
    @Test("the RFC 6238 SHA-1 test vectors, in 8 digits and cut to the 6 an authenticator shows")
    func rfcVectors() {
        let totp8 = TOTP(secret: Data("12345678901234567890".utf8), digits: 8)
        let vectors: [(TimeInterval, String)] = [(59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
                                                 (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130")]
        for (time, code) in vectors {
            #expect(totp8.code(at: Date(timeIntervalSince1970: time)) == code, "T = \(time)")
            #expect(TOTP(secret: Data("12345678901234567890".utf8)).code(at: Date(timeIntervalSince1970: time)) == String(code.suffix(6)))
        }
    }

    @Test("a code matches its own step and one step either side, nothing further, nothing malformed")
    func window() {
        let totp = TOTP(secret: Data("12345678901234567890".utf8))
        let now = TestTime.now
        let step = totp.step(at: now)
        #expect(totp.matchingStep(totp.code(step: step), at: now) == step)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now) == step - 1)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now) == step + 1)
        #expect(totp.matchingStep(totp.code(step: step - 2), at: now) == nil)
        #expect(totp.matchingStep("12345", at: now) == nil)
        #expect(totp.matchingStep("abcdef", at: now) == nil)
    }

    @Test("base32 as authenticator apps write it: RFC 4648's vectors, and back")
    func base32() {
        #expect(Base32.encode(Data("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.encode(Data("f".utf8)) == "MY")
        #expect(Base32.decode("mzxw 6ytb oi") == Data("foobar".utf8))
        #expect(Base32.decode("MZ1") == nil)
        let uri = TOTP(secret: Data("foobar".utf8)).uri(account: "ann@team.example.org", issuer: "UNITI")
        #expect(uri == "otpauth://totp/UNITI:ann@team.example.org?secret=MZXW6YTBOI&issuer=UNITI&algorithm=SHA1&digits=6&period=30")
        #expect(QRCodeSVG(uri).map { $0.path.hasPrefix("M") && $0.width >= 21 } == true)
    }
}

// MARK: Store

@Suite("Console: staff store contract (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct StaffStoreTests {
    let now = TestTime.now

    @Test("an address has one staff account; an enrolment link works once; a TOTP step and a recovery code are taken once",
          arguments: StoreKind.allCases)
    func enrolmentAndFactors(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            let id = try await store.createStaff(name: "Ann", email: "ann@team.example.org", admin: false, now: now)
            await #expect(throws: StoreConflict.emailTaken) {
                try await store.createStaff(name: "Ann again", email: "ANN@team.example.org", admin: true, now: now)
            }
            try await store.storeStaffEnrolment(staffId: id, tokenHash: "old", expiresAt: now + 3600, now: now)
            try await store.storeStaffEnrolment(staffId: id, tokenHash: "link", expiresAt: now + 3600, now: now)
            #expect(try await store.staffEnrolment(tokenHash: "old", now: now) == nil, "a newer link ends the older")
            #expect(try await store.staffEnrolment(tokenHash: "link", now: now + 3601) == nil, "expired")
            #expect(try await store.staffEnrolment(tokenHash: "link", now: now)?.id == id)
            let done = try await store.completeStaffEnrolment(tokenHash: "link", passwordHash: "hash", totpSecret: "SECRET",
                                                              confirmedStep: 100, recoveryCodeHashes: ["r1", "r2"], now: now)
            #expect(done == id)
            #expect(try await store.completeStaffEnrolment(tokenHash: "link", passwordHash: "other", totpSecret: "OTHER",
                                                           confirmedStep: 100, recoveryCodeHashes: [], now: now) == nil)
            #expect(try await store.staffMember(id: id)?.enrolled == true)
            #expect(try await store.acceptTOTPStep(staffId: id, step: 100) == false, "the enrolment's own code")
            #expect(try await store.acceptTOTPStep(staffId: id, step: 101))
            #expect(try await store.acceptTOTPStep(staffId: id, step: 101) == false)
            #expect(try await store.acceptTOTPStep(staffId: id, step: 99) == false, "an older step after a newer one")
            #expect(try await store.useRecoveryCode(staffId: id, codeHash: "r1", now: now))
            #expect(try await store.useRecoveryCode(staffId: id, codeHash: "r1", now: now) == false)
            #expect(try await store.unusedRecoveryCodes(staffId: id) == 1)
        }
    }

    @Test("a console session lives while used, ends after 30 idle minutes for good, and at a password change",
          arguments: StoreKind.allCases)
    func sessions(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            let id = try await store.createStaff(name: "Ann", email: "ann@team.example.org", admin: false, now: now)
            _ = try await store.createStaffSession(staffId: id, tokenHash: "s", now: now)
            #expect(try await store.staffSession(tokenHash: "s", idle: 1800, now: now + 1799)?.member.id == id)
            #expect(try await store.staffSession(tokenHash: "s", idle: 1800, now: now + 1799 + 1799) != nil, "each use restarts the idle time")
            #expect(try await store.staffSession(tokenHash: "s", idle: 1800, now: now + 1799 + 1799 + 1800) == nil)
            #expect(try await store.staffSession(tokenHash: "s", idle: 1800, now: now + 1799) == nil, "ended, not only idle")
            _ = try await store.createStaffSession(staffId: id, tokenHash: "t", now: now)
            try await store.setStaffPassword(staffId: id, hash: "new", now: now)
            #expect(try await store.staffSession(tokenHash: "t", idle: 1800, now: now) == nil)
        }
    }

    @Test("roles per study; the audit trail appends and reads, and refuses an update or a delete even written by hand",
          arguments: StoreKind.allCases)
    func rolesAndAudit(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            let id = try await store.createStaff(name: "Ann", email: "ann@team.example.org", admin: false, now: now)
            try await store.createStudy(StudyRecord(id: "s1", title: LocalizedText(["en": "S1"])), now: now)
            #expect(try await store.studyRole(staffId: id, studyId: "s1") == nil)
            try await store.setStudyRole(staffId: id, studyId: "s1", role: .viewer)
            try await store.setStudyRole(staffId: id, studyId: "s1", role: .editor)
            #expect(try await store.studyRole(staffId: id, studyId: "s1") == .editor)
            #expect(try await store.studyTeam(studyId: "s1").map(\.role) == [.editor])
            try await store.appendAudit(.operator, studyId: "s1", action: "study.update", detail: .object(["changed": .array([.string("title")])]), now: now)
            try await store.appendAudit(.staff(id), studyId: "s1", action: "export", detail: .object(["rows": .number(3)]), now: now + 1)
            let trail = try await store.auditTrail(studyId: "s1")
            #expect(trail.map(\.action) == ["study.update", "export"])
            #expect(trail.map(\.actorText) == ["operator", "Ann <ann@team.example.org> (staff \(id))"])
            await #expect(throws: (any Error).self) { try await store.database.execute("UPDATE audit_log SET action = 'nothing'") }
            await #expect(throws: (any Error).self) { try await store.database.execute("DELETE FROM audit_log") }
            #expect(try await store.auditTrail(studyId: "s1").count == 2)
        }
    }
}

// MARK: Pages

@Suite("Console: sign-in, enrolment, sessions", .timeLimit(.minutes(10)))
struct ConsoleSignInTests {
    @Test("staff add and staff link mail one-time enrolment links: one staff account per address, and a new link ends the older one")
    func commandsMailLinks() async throws {
        let server = try TestServer()
        let spool = server.directory.appendingPathComponent("staff-spool")
        let database = ["--database", server.databasePath, "--mail-spool", spool.path]
        func newestCode() throws -> String {
            let newest = try #require(try SpoolMailer(directory: spool).messages().last)
            return try #require(ConsoleFixture.code(in: try String(contentsOf: newest.url, encoding: .utf8).replacingOccurrences(of: "\r\n", with: "\n")))
        }
        try await runServerCommand(["staff", "add", "Ann", "--email", "Ann@Team.example.org"] + database)
        let first = try newestCode()
        let member = try #require(try await server.store.staffMember(email: "ann@team.example.org"))
        await #expect(throws: (any Error).self) { try await runServerCommand(["staff", "add", "Ann", "--email", "ann@team.example.org"] + database) }
        try await runServerCommand(["staff", "link", "ann@team.example.org"] + database)
        let second = try newestCode()
        #expect(first != second)
        // The commands read the wall clock, as they do on the command line; so does this check.
        let service = StaffService(environment: ServerEnvironment(store: server.store, mailer: server.environment.mailer,
                                                                  passwords: PasswordHasher(cost: 4)))
        await #expect(throws: APIError.self) { try await service.enrolling(code: first) }
        #expect(try await service.enrolling(code: second).id == member.id)
    }

    @Test("enrolment from the mailed link: the secret as text and as an SVG QR code, a wrong code refused, recovery codes shown once, the link spent")
    func enrolmentPages() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let added = try await StaffService(environment: fixture.environment).add(name: "Ann", email: "ann@team.example.org", admin: false, by: .operator)
            let code = try #require(ConsoleFixture.code(in: added.mail.body))
            #expect(added.mail.body.contains("/console/enrol?code=\(code)"))
            let browser = PortalBrowser(client)
            let page = try await browser.get("/console/enrol?code=\(code)")
            #expect(page.status == .ok)
            #expect(page.text.contains(#"<svg class="qr""#) && page.text.contains(#"<path d="M"#))
            let secret = try #require(page.text.firstMatch(of: #/name="secret" value="([A-Z2-7]+)"/#).map { String($0.1) })
            let totp = TOTP(secret: try #require(Base32.decode(secret)))
            let csrf = try #require(PortalBrowser.csrf(in: page.text))
            var fields = ["csrf": csrf, "code": code, "secret": secret, "password": "staff password", "passwordRepeat": "staff password"]
            fields["totp"] = totp.code(at: fixture.clock.now().addingTimeInterval(-120))
            let wrong = try await browser.post("/console/enrol", fields)
            #expect(wrong.status == .unprocessableContent)
            #expect(try await fixture.store.staffMember(id: added.id)?.enrolled == false)
            fields["totp"] = totp.code(at: fixture.clock.now())
            let done = try await browser.post("/console/enrol", fields)
            #expect(done.status == .ok)
            let codes = done.text.matches(of: #/<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>/#).map { String($0.1) }
            #expect(codes.count == StaffService.recoveryCodeCount)
            #expect(done.headers[.cacheControl] == "no-store")
            let again = try await browser.post("/console/enrol", fields)
            #expect(again.status == .unprocessableContent, "the link is spent")
            // A recovery code signs in once instead of the app's code.
            let login = StaffLogin(id: added.id, email: "ann@team.example.org", password: "staff password", totp: totp)
            let first = try await fixture.signIn(PortalBrowser(client), login, code: codes[0])
            #expect(first.headers[.location] == "/console")
            let second = try await fixture.signIn(PortalBrowser(client), login, code: codes[0])
            #expect(second.status == .unauthorized)
        }
    }

    @Test("sign-in needs the password and a code; a code is not taken twice; the staff cookie is HttpOnly, SameSite=Strict, Path=/console; failures are throttled")
    func signIn() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let ann = try await fixture.enrolledStaff("ann")
            let browser = PortalBrowser(client)
            #expect(try await browser.get("/console").headers[.location] == "/console/signin")
            var wrongPassword = ann
            wrongPassword.password = "not the password"
            #expect(try await fixture.signIn(browser, wrongPassword).status == .unauthorized)
            #expect(try await fixture.signIn(browser, ann, code: "000000").status == .unauthorized)
            fixture.clock.advance(by: 30)
            let code = ann.totp.code(at: fixture.clock.now().addingTimeInterval(30))
            let signedIn = try await browser.submit("/console/signin", to: "/console/signin",
                                                    ["email": ann.email, "password": ann.password, "code": code])
            #expect(signedIn.headers[.location] == "/console")
            let cookie = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("uniti_staff=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/console"))
            #expect(try await browser.get("/console").status == .ok)
            // The same code again (still within its window) is refused.
            let replay = PortalBrowser(client)
            let again = try await replay.submit("/console/signin", to: "/console/signin", ["email": ann.email, "password": ann.password, "code": code])
            #expect(again.status == .unauthorized)
            // Five failures since the last success (the replay and five more), then the next waits,
            // even with everything right (the clock stands still: the first wait is seconds).
            for _ in 0..<5 { try await fixture.signIn(replay, wrongPassword) }
            let throttled = try await replay.submit("/console/signin", to: "/console/signin",
                                                    ["email": ann.email, "password": ann.password, "code": ann.totp.code(at: fixture.clock.now())])
            #expect(throttled.status == .tooManyRequests)
            // A participant's portal session opens no console page.
            let participant = try await server.loggedInPortalAccount(client, "pat")
            #expect(try await participant.get("/console").headers[.location] == "/console/signin")
        }
    }

    @Test("a console session ends after 30 idle minutes (the clock moved), at sign-out, and at a password change")
    func sessionEnds() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let ann = try await fixture.enrolledStaff("ann")
            let browser = PortalBrowser(client)
            try await fixture.signIn(browser, ann)
            fixture.clock.advance(by: 29 * 60)
            #expect(try await browser.get("/console").status == .ok)
            fixture.clock.advance(by: 29 * 60)
            #expect(try await browser.get("/console").status == .ok, "each page restarts the idle time")
            fixture.clock.advance(by: 30 * 60)
            #expect(try await browser.get("/console").headers[.location] == "/console/signin")

            try await fixture.signIn(browser, ann)
            let out = try await browser.submit("/console", to: "/console/signout", [:])
            #expect(out.headers[.location] == "/console/signin?notice=signedOut")
            #expect(try await browser.get("/console").headers[.location] == "/console/signin")

            let other = PortalBrowser(client)
            try await fixture.signIn(other, ann)
            try await fixture.signIn(browser, ann)
            let changed = try await browser.submit("/console/password", to: "/console/password",
                                                   ["current": ann.password, "password": "a new password", "passwordRepeat": "a new password"])
            #expect(changed.headers[.location] == "/console/signin?notice=passwordChanged")
            #expect(try await other.get("/console").headers[.location] == "/console/signin", "the other browser is out too")
            var renewed = ann
            renewed.password = "a new password"
            #expect(try await fixture.signIn(browser, renewed).headers[.location] == "/console")
        }
    }
}

@Suite("Console: roles per study and the audit trail", .timeLimit(.minutes(10)))
struct ConsoleRoleTests {
    @Test("every study route, tried by a member of another study, is 404; a viewer reads the design and consent and is refused every change and the export; an owner reaches all",
          arguments: StoreKind.allCases)
    func otherStudyIsNotFound(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                try await fixture.study("alpha")
                try await fixture.study("beta")
                let owner = try await fixture.enrolledStaff("olga")
                let stranger = try await fixture.enrolledStaff("sam")
                let viewer = try await fixture.enrolledStaff("vic")
                try await fixture.role(.owner, owner, "alpha")
                try await fixture.role(.owner, stranger, "beta")
                try await fixture.role(.viewer, viewer, "alpha")
                _ = try await StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()).addQuestionnaire(
                    try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "alpha-daily").utf8), studyId: "alpha"), module: nil)
                let member = try await fixture.store.createUser(username: "pat", email: "pat@example.org", passwordHash: "x", language: "en",
                                                                pseudonym: "p-000000000001", now: fixture.clock.now())
                try await fixture.store.setMembership(studyId: "alpha", userId: member, status: .member, now: fixture.clock.now())
                // Randomised, so that the trial's pages have something to show.
                _ = try await TrialService(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())).setUp(
                    studyId: "alpha", design: Data(#"{"arms": [{"id": "a", "label": "A", "ratio": 1}, {"id": "b", "label": "B", "ratio": 1}], "factors": [], "method": "blocks"}"#.utf8))
                let strangerBrowser = PortalBrowser(client), ownerBrowser = PortalBrowser(client), viewerBrowser = PortalBrowser(client)
                try await fixture.signIn(strangerBrowser, stranger)
                try await fixture.signIn(ownerBrowser, owner)
                try await fixture.signIn(viewerBrowser, viewer)
                let csrf = try #require(PortalBrowser.csrf(in: try await strangerBrowser.get("/console").text))
                let viewerCSRF = try #require(PortalBrowser.csrf(in: try await viewerBrowser.get("/console").text))
                // What a monitor or PI reads: the whole design and the consent history.
                for page in [ConsolePage.questionnaires, .preview, .questionnaireSettings, .consent, .overview, .participants, .participant] {
                    #expect(page.allows(.viewer), "\(page.name)")
                }
                for page in ConsolePage.studyPages {
                    let path = page.uri(study: "alpha", questionnaire: "alpha-daily", participant: "p-000000000001")
                    let response = page.method == .post ? try await strangerBrowser.post(path, ["csrf": csrf, "participant": "x"])
                                                        : try await strangerBrowser.get(path)
                    #expect(response.status == .notFound, "\(page.method) \(path)")
                    #expect(!response.text.contains("Study alpha"), "\(path) names the study")
                    if page.method == .get {
                        let own = try await ownerBrowser.get(path + (page == .export ? "?format=csv" : ""))
                        #expect(own.status == (page.exactRole ? .forbidden : .ok), "owner: \(path) (the seed is the statistician's alone)")
                        let viewed = try await viewerBrowser.get(path + (page == .export ? "?format=csv" : ""))
                        #expect(viewed.status == (page.allows(.viewer) ? .ok : .forbidden), "viewer: \(path)")
                    } else if !page.allows(.viewer) {
                        // Both ways: every change is refused to a viewer before its handler runs.
                        let refused = try await viewerBrowser.post(path, ["csrf": viewerCSRF, "participant": "x", "definition": "{}", "consent-en": "x"])
                        #expect(refused.status == .forbidden, "viewer: POST \(path)")
                    }
                }
                #expect(try await strangerBrowser.get("/console/studies/no-such-study").status == .notFound)
                let exports = try await fixture.store.auditTrail(studyId: "alpha").filter { $0.action == "export" }
                #expect(exports.map(\.actor) == Array(repeating: .staff(owner.id), count: 9),
                        "the owner's export, codebooks, SPSS syntax, R script, ZIP, adherence, prompt table and its syntax only; the viewer's refused ones are no export")
                #expect(Set(exports.map { $0.detail["format"] }) == [.string("csv"), .string("codebook"), .string("spss-syntax"), .string("wide-codebook"),
                                                                     .string("r-syntax"), .string("zip"), .string("adherence-csv"),
                                                                     .string("prompts-csv"), .string("prompts-spss-syntax")])
            }
        }
    }

    @Test("staff unassign takes one study away (404 at once); staff disable ends the session, refuses sign-in and takes every role; both audited")
    func offboarding() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await fixture.study("alpha")
            try await fixture.study("beta")
            let ann = try await fixture.enrolledStaff("ann")
            try await fixture.role(.editor, ann, "alpha")
            try await fixture.role(.viewer, ann, "beta")
            let browser = PortalBrowser(client)
            try await fixture.signIn(browser, ann)
            #expect(try await browser.get("/console/studies/alpha").status == .ok)
            let database = ["--database", server.databasePath]

            try await runServerCommand(["staff", "unassign", "alpha", ann.email] + database)
            #expect(try await browser.get("/console/studies/alpha").status == .notFound, "the role is gone at the next page")
            #expect(try await browser.get("/console/studies/beta").status == .ok)
            await #expect(throws: (any Error).self, "a second unassign names the missing role") {
                try await runServerCommand(["staff", "unassign", "alpha", ann.email] + database)
            }

            try await runServerCommand(["staff", "disable", ann.email] + database)
            #expect(try await browser.get("/console/studies/beta").headers[.location] == "/console/signin", "the open session ended")
            fixture.clock.advance(by: 60)
            let again = PortalBrowser(client)
            #expect(try await fixture.signIn(again, ann).status == .unauthorized, "password and second factor are forgotten")
            #expect(try await server.store.studyRoles(staffId: try #require(try await server.store.staffMember(email: ann.email)).id).isEmpty)
            #expect(try await server.store.auditTrail(studyId: "alpha").map(\.action).suffix(1) == ["team.remove"])
            #expect(try await server.store.auditTrail(studyId: "beta").map(\.action).suffix(1) == ["team.disable"])
        }
    }

    @Test("each change through the console and the CLI leaves its line: settings, team, questionnaire (an error listed by path, then fixed), activation, join request, export with filters and rows")
    func auditLines() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await runServerCommand(["study", "create", "gamma", "--title", "Gamma", "--access", "byRequest", "--database", server.databasePath])
            let owner = try await fixture.enrolledStaff("olga")
            try await runServerCommand(["staff", "role", "gamma", owner.email, "owner", "--database", server.databasePath])
            let browser = PortalBrowser(client)
            try await fixture.signIn(browser, owner)
            let base = "/console/studies/gamma"
            let saved = try await browser.submit("\(base)/settings", to: "\(base)/settings",
                                                 ["titleEn": "Gamma", "titleDe": "Gamma (de)", "access": "byRequest", "running": "on",
                                                  "mayLeave": "on", "switch-rewards": "on", "module-tyt": "on", "module-tys": "on"])
            #expect(saved.headers[.location] == "\(base)/settings?notice=saved")
            #expect(try await server.store.study(id: "gamma")?.modules == [.tys, .tyt])
            #expect(try await server.store.studySwitches(studyId: "gamma") == [StudySwitch.Key(module: .tyh, name: "rewards")])
            #expect(try await browser.get("\(base)/settings").text.contains(#"name="switch-rewards" id="switch-rewards" checked"#))
            let viewer = try await fixture.enrolledStaff("vic")
            #expect(try await browser.submit("\(base)/team", to: "\(base)/team", ["email": viewer.email, "role": "viewer", "name": "Vic"]).status == .seeOther)
            // A definition with a problem: listed by path, nothing stored; markup stays text.
            let broken = dailyQuestionnaireJSON(id: "gamma-daily").replacingOccurrences(of: #""min": 0, "max": 100"#, with: #""min": 100, "max": 0"#)
                .replacingOccurrences(of: #""title": {"en": "Daily"}"#, with: #""title": {"en": "<script>alert(1)</script>"}"#)
                .replacingOccurrences(of: "so-so", with: "<b>so-so</b>")
            let refused = try await browser.submit("\(base)/questionnaires", to: "\(base)/questionnaires", ["definition": broken])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("items[0].max: must be greater than min"), "the problem names its path")
            #expect(!refused.text.contains("<script>alert(1)</script>"))
            #expect(try await server.store.latestQuestionnaires(studyId: "gamma").isEmpty)
            let fixed = broken.replacingOccurrences(of: #""min": 100, "max": 0"#, with: #""min": 0, "max": 100"#)
            #expect(try await browser.submit("\(base)/questionnaires", to: "\(base)/questionnaires", ["definition": fixed]).status == .seeOther)
            let listed = try await browser.get("\(base)/questionnaires")
            #expect(listed.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            // The preview is the portal's own form, markup as text there too.
            let preview = try await browser.get("\(base)/questionnaires/gamma-daily/preview")
            #expect(preview.status == .ok)
            #expect(preview.text.contains(#"class="questionnaire""#) && preview.text.contains("How loud?"))
            #expect(preview.text.contains("&lt;script&gt;") && !preview.text.contains("<script>alert"))
            // And in the shell's lines beside the form: the option as the shell prints it, escaped.
            let shell = try #require(ConsoleShellPreviewTests.shellText(in: preview.text), "the shell's <pre> beside the form")
            #expect(shell.contains("  2) <b>so-so</b>"))
            #expect(preview.text.contains("  2) &lt;b&gt;so-so&lt;/b&gt;") && !preview.text.contains("<b>so-so"))
            #expect(try await browser.submit("\(base)/questionnaires", to: "\(base)/questionnaires/active",
                                             ["questionnaire": "gamma-daily", "active": "false"]).status == .seeOther)
            // A participant asks to join; the owner approves in the console.
            let token = try await client.signUp("pat", on: server)
            try await client.json(.post, "/api/v1/studies/gamma/join", token: token, body: JoinStudyRequest())
            let pseudonym = try #require(try await server.store.user(login: "pat")?.pseudonym)
            #expect(try await browser.get("\(base)/participants").text.contains(pseudonym))
            #expect(!(try await browser.get("\(base)/participants").text.contains("pat@example.org")), "never an address")
            let decided = try await browser.submit("\(base)/participants", to: "\(base)/participants/decide",
                                                   ["participant": pseudonym, "decision": "approve"])
            #expect(decided.status == .seeOther)
            // A second one is denied: listed as denied on the page, no longer among the open requests.
            let other = try await client.signUp("quin", on: server)
            try await client.json(.post, "/api/v1/studies/gamma/join", token: other, body: JoinStudyRequest())
            let denied = try #require(try await server.store.user(login: "quin")?.pseudonym)
            #expect(try await browser.submit("\(base)/participants", to: "\(base)/participants/decide",
                                             ["participant": denied, "decision": "deny"]).status == .seeOther)
            let participantsPage = try await browser.get("\(base)/participants").text
            #expect(participantsPage.contains("<ul id=\"denied\">\n<li>\(denied) ("), "the denied request is listed as denied")
            #expect(!participantsPage.contains("<button type=\"submit\" name=\"decision\" value=\"deny\">"), "and is no longer open")
            // Approved after all, as `join-requests approve` may: a member now.
            #expect(try await browser.submit("\(base)/participants", to: "\(base)/participants/decide",
                                             ["participant": denied, "decision": "approve"]).status == .seeOther)
            #expect(try await server.store.membership(studyId: "gamma", userId: try #require(try await server.store.user(login: "quin")?.id)) == .member)
            #expect(!(try await browser.get("\(base)/participants").text.contains("<ul id=\"denied\">")))
            let export = try await browser.get("\(base)/data/export?format=csv&questionnaire=gamma-daily&from=2027-01-01&to=2027-01-31")
            #expect(export.status == .ok)
            #expect(export.text.hasPrefix("participant,sheet,questionnaire"))
            let codebook = try await browser.get("\(base)/data/codebook.csv")
            #expect(codebook.text.contains("gamma-daily,1,loudness,slider"))
            let trail = try await server.store.auditTrail(studyId: "gamma")
            #expect(trail.map(\.action) == ["study.create", "team.set", "study.update", "team.invite", "questionnaire.add",
                                            "questionnaire.deactivate", "participant.request", "joinRequest.approve", "participant.request",
                                            "joinRequest.deny", "joinRequest.approve", "export", "export"])
            #expect(trail.last?.detail == .object(["format": .string("codebook"), "filters": .object([:]),
                                                   "rows": .number(Double(codebook.text.split(whereSeparator: \.isNewline).count - 1))]), "a row per item described")
            let csvLine = trail[trail.count - 2]
            #expect(trail[0].actor == .operator && trail[2].actor == .staff(owner.id))
            #expect(csvLine.detail == .object(["format": .string("csv"), "rows": .number(0),
                                                   "filters": .object(["questionnaire": .string("gamma-daily"), "from": .string("2027-01-01T00:00:00Z"),
                                                                       "to": .string("2027-02-01T00:00:00Z")])]))
            let audit = try await browser.get("\(base)/audit")
            #expect(audit.status == .ok && audit.text.contains("joinRequest.approve"))
        }
    }
}

@Suite("Console: route groups", .timeLimit(.minutes(5)))
struct ConsolePipelineTests {
    /// The console routes a visitor without a staff session may reach. A new entry here is a
    /// decision, not a default.
    static let publicPages: Set<String> = ["GET /console/signin", "POST /console/signin", "GET /console/enrol", "POST /console/enrol"]

    static func routes(_ environment: ServerEnvironment) -> [NamedRoute] {
        NamedRoute.all(ServerApplication.router(environment: environment)).filter { $0.uri.hasPrefix("/console") }
    }

    @Test("every console page outside sign-in and enrolment sends a visitor without a staff session to the sign-in, with a valid form token and with a participant's session")
    func everyOtherPageNeedsAStaffSession() async throws {
        let server = try TestServer()
        let routes = Self.routes(server.environment)
        #expect(Self.publicPages.isSubset(of: Set(routes.map(\.name))), "\(routes.map(\.name))")
        let guarded = routes.filter { !Self.publicPages.contains($0.name) }
        #expect(guarded.count == ConsolePage.all.count - Self.publicPages.count, "\(guarded.map(\.name))")
        try await server.run { client in
            let visitor = PortalBrowser(client)
            let token = try #require(PortalBrowser.csrf(in: try await visitor.get("/console/signin").text))
            let participant = try await server.loggedInPortalAccount(client, "pat")
            for route in guarded {
                let response = route.method == .post ? try await visitor.post(route.uri, ["csrf": token]) : try await visitor.get(route.uri)
                #expect(response.headers[.location] == "/console/signin", "\(route.name): \(response.status)")
                if route.method == .get {
                    #expect(try await participant.get(route.uri).headers[.location] == "/console/signin", "\(route.name)")
                }
            }
        }
    }

    @Test("every console form refuses a missing or another session's CSRF token with the 403 page, and nothing happens; pages carry the portal's CSP")
    func everyFormChecksItsToken() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        let posts = Self.routes(server.environment).filter { $0.method == .post }
        try await fixture.run { client in
            try await fixture.study("1")
            let ann = try await fixture.enrolledStaff("ann", admin: true)
            let browser = PortalBrowser(client), other = PortalBrowser(client)
            try await fixture.signIn(browser, ann)
            try await fixture.signIn(other, ann)
            let page = try await other.get("/console")
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(page.headers[.contentSecurityPolicy]?.contains("unsafe-inline") == false)
            let otherToken = try #require(PortalBrowser.csrf(in: page.text))
            for route in posts {
                for fields in [[:], ["csrf": otherToken], ["csrf": ""]] {
                    let form = fields.merging(["id": "made", "title": "Made", "owner": ann.email, "email": ann.email, "role": "owner",
                                               "current": ann.password, "password": "another password", "passwordRepeat": "another password",
                                               "participant": "x", "decision": "approve", "titleEn": "Changed", "access": "public",
                                               "definition": dailyQuestionnaireJSON(id: "made"), "questionnaire": "made", "active": "false"]) { $1 }
                    let response = try await browser.post(route.uri, form)
                    #expect(response.status == .forbidden, "\(route.name) with \(fields)")
                    #expect(response.text.contains("did not come from this console"), "\(route.name)")
                }
            }
            #expect(try await browser.get("/console").status == .ok, "still signed in: the password did not change")
            #expect(try await fixture.store.study(id: "made") == nil)
            #expect(try await fixture.store.study(id: "1")?.title.text(in: "en") == "Study 1")
            #expect(try await fixture.store.auditTrail(studyId: "1").map(\.action) == ["study.create"])
        }
    }
}
