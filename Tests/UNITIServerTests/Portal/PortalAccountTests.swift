import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import UNITITesting
import UNITIProtocol
@testable import UNITIServer

/// Runs `body` against a router built on `environment` (a second server process on the same
/// database, or the same server with other options).
private func run(_ environment: ServerEnvironment, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
    try await runInProcess(environment, body)
}

/// A second environment on the server's database file, as another `uniti-server` process has.
private func secondProcess(of server: TestServer) throws -> ServerEnvironment {
    ServerEnvironment(store: try ServerStore(sqlitePath: server.databasePath), mailer: server.environment.mailer,
                      clock: server.clock, passwords: PasswordHasher(cost: 4))
}

extension PortalBrowser {
    /// Logs in; the login must lead to the start page.
    func logIn(_ server: TestServer, _ name: String, password: String = "correct horse") async throws {
        let response = try await server.portalLogin(self, name, password: password)
        #expect(response.headers[.location] == "/")
    }
}

extension TestServer {
    /// A browser with a new, activated account made through the portal, logged in.
    func loggedInPortalAccount(_ client: any TestClientProtocol, _ name: String) async throws -> PortalBrowser {
        let browser = PortalBrowser(client)
        try await portalAccount(browser, name)
        try await browser.logIn(self, name)
        return browser
    }
}

extension TestClientProtocol {
    /// An API access token for an existing account (an app's login beside the browser's).
    func apiToken(_ login: String, password: String = "correct horse") async throws -> String {
        try await json(.post, "/api/v1/account/login", body: LoginRequest(login: login, password: password))
            .decode(SessionTokens.self).accessToken
    }
}

@Suite("Portal: profile, password, deactivation", .timeLimit(.minutes(10)))
struct PortalAccountTests {
    @Test("the profile form changes username, names, gender and language by the API's rules and messages")
    func profileChange() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            _ = try await client.signUp("bert", on: server)
            try await browser.logIn(server, "anna")
            let page = try await browser.get("/profile")
            #expect(page.text.contains(#"value="anna@example.org" readonly"#))

            let saved = try await browser.submit("/profile", to: "/profile", ["username": "anna.k", "firstName": "Anna",
                                                  "lastName": "", "gender": "female", "language": "de"])
            #expect(saved.headers[.location] == "/profile?notice=profileSaved")
            let account = try #require(try await server.store.user(login: "anna@example.org"))
            #expect(account.username == "anna.k")
            #expect(account.firstName == "Anna")
            #expect(account.gender == .female)
            #expect(account.language == "de")

            // The API's rules, the API's words; nothing changes.
            let invalid = try await browser.submit("/profile", to: "/profile", ["username": "12", "gender": "female", "language": "de"])
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.text.contains("A username has 3 to 32 letters"))
            let taken = try await browser.submit("/profile", to: "/profile", ["username": "bert", "gender": "female", "language": "de"])
            #expect(taken.status == .conflict)
            #expect(taken.text.contains("This username is taken"))
            let language = try await browser.submit("/profile", to: "/profile", ["username": "anna.k", "gender": "female", "language": "fr"])
            #expect(language.status == .unprocessableContent)
            let gender = try await browser.submit("/profile", to: "/profile", ["username": "anna.k", "gender": "robot", "language": "de"])
            #expect(gender.status == .unprocessableContent)
            #expect(try await server.store.user(login: "anna@example.org")?.username == "anna.k")
            #expect(try await server.store.user(login: "anna@example.org")?.language == "de")
        }
    }

    @Test("changing the password needs the current one, ends the other portal and API sessions, keeps this one")
    func passwordChangeEndsOtherSessions() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let other = PortalBrowser(client)
            try await other.logIn(server, "anna")
            let token = try await client.apiToken("anna")

            let differ = try await browser.submit("/profile", to: "/profile/password",
                                                  ["currentPassword": "correct horse", "password": "new horse 1", "passwordRepeat": "new horse 2"])
            #expect(differ.status == .unprocessableContent)
            let wrong = try await browser.submit("/profile", to: "/profile/password",
                                                 ["currentPassword": "not it", "password": "new horse 1", "passwordRepeat": "new horse 1"])
            #expect(wrong.status == .forbidden)
            #expect(wrong.text.contains(#"id="password-error">The password is wrong."#))
            let weak = try await browser.submit("/profile", to: "/profile/password",
                                                ["currentPassword": "correct horse", "password": "short", "passwordRepeat": "short"])
            #expect(weak.text.contains("at least 8 characters"))
            #expect(try await other.get("/").status == .ok)
            #expect(try await client.get("/api/v1/account/profile", token: token).status == .ok)

            let changed = try await browser.submit("/profile", to: "/profile/password",
                                                   ["currentPassword": "correct horse", "password": "new horse 1", "passwordRepeat": "new horse 1"])
            #expect(changed.headers[.location] == "/profile?notice=passwordChangedOthersOut")
            #expect(try await browser.get("/profile").status == .ok)
            #expect(try await other.get("/").headers[.location] == "/login")
            #expect(try await client.get("/api/v1/account/profile", token: token).status == .unauthorized)
            let fresh = PortalBrowser(client)
            #expect(try await server.portalLogin(fresh, "anna", password: "correct horse").status == .unauthorized)
            try await fresh.logIn(server, "anna", password: "new horse 1")
        }
    }

    @Test("deactivation needs the password, ends every session like the API's, and the login page says so")
    func deactivation() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let token = try await client.apiToken("anna")

            let wrong = try await browser.submit("/profile", to: "/profile/deactivate", ["password": "guess"])
            #expect(wrong.status == .forbidden)
            #expect(wrong.text.contains(#"id="deactivate-error""#))
            #expect(try await server.store.user(login: "anna")?.active == true)

            let done = try await browser.submit("/profile", to: "/profile/deactivate", ["password": "correct horse"])
            #expect(done.headers[.location] == "/login?notice=accountDeactivated")
            #expect(browser.cookies["uniti_session"] == nil)
            #expect(try await browser.get("/login?notice=accountDeactivated").text.contains("Your account is deactivated"))
            #expect(try await server.store.user(login: "anna")?.active == false)
            #expect(try await client.get("/api/v1/account/profile", token: token).status == .unauthorized)
            let again = try await server.portalLogin(browser, "anna")
            #expect(again.status == .forbidden)
            #expect(again.text.contains("deactivated"))
            // The API's reactivation brings it back, as for an account deactivated in the app.
            let reactivated = try await client.json(.post, "/api/v1/account/reactivate", body: ReactivateRequest(login: "anna", password: "correct horse"))
            #expect(reactivated.status == .ok)
        }
    }

    @Test("logging in to a deactivated account offers reactivation: the password again (never carried in the page), CSRF-checked, then signed in",
          .timeLimit(.minutes(10)))
    func reactivationOffered() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let done = try await browser.submit("/profile", to: "/profile/deactivate", ["password": "correct horse"])
            #expect(done.headers[.location] == "/login?notice=accountDeactivated")
            #expect(try await browser.get("/login?notice=accountDeactivated").text.contains("you will be offered to reactivate it"))

            // A wrong password learns nothing about the account.
            let wrong = try await server.portalLogin(browser, "anna", password: "wrong horse")
            #expect(wrong.status == .unauthorized)
            #expect(!wrong.text.contains("/reactivate") && !wrong.text.contains("deactivated"))

            let offered = try await server.portalLogin(browser, "anna")
            #expect(offered.status == .forbidden)
            #expect(offered.text.contains(#"<form method="post" action="/reactivate""#))
            #expect(offered.text.contains(#"name="login" type="text" autocomplete="username" required value="anna""#))
            #expect(offered.text.contains(#"name="password" type="password" autocomplete="current-password" required>"#),
                    "the password field is not empty")
            #expect(!offered.text.contains("correct horse"), "the password came back in the page")
            #expect(browser.cookies["uniti_session"] == nil)
            #expect(try await server.store.user(login: "anna")?.active == false)

            let forged = try await browser.post("/reactivate", ["login": "anna", "password": "correct horse"])
            #expect(forged.status == .forbidden)
            let again = try await browser.submit("/login", to: "/reactivate", ["login": "anna", "password": "wrong horse"])
            #expect(again.status == .unauthorized)
            #expect(again.text.contains("The login or the password is wrong.") && again.text.contains(#"action="/reactivate""#))
            #expect(try await server.store.user(login: "anna")?.active == false)

            let reactivated = try await browser.submit("/login", to: "/reactivate", ["login": "anna", "password": "correct horse"])
            #expect(reactivated.headers[.location] == "/?notice=reactivated")
            #expect(browser.cookies["uniti_session"] != nil)
            #expect(try await server.store.user(login: "anna")?.active == true)
            let start = try await browser.get("/?notice=reactivated")
            #expect(start.status == .ok)
            #expect(start.text.contains("your account is active again") && start.text.contains(#"id="username">anna<"#))
            #expect(try await client.get("/api/v1/account/profile", token: try await client.apiToken("anna")).status == .ok)
        }
    }

    @Test("a portal session slides while used (the cookie with it), ends after 8 idle hours, and at the latest the refresh lifetime after login",
          .timeLimit(.minutes(10)))
    func slidingSession() async throws {
        let server = try TestServer()
        var environment = server.environment
        environment.refreshTokenLifetime = 30 * 3600
        try await run(environment) { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            try await browser.logIn(server, "anna")
            func sessionCookie(_ response: TestResponse) -> String? {
                response.headers[values: .setCookie].first { $0.hasPrefix("uniti_session=") }
            }
            // Within the renewal step a page writes nothing.
            server.clock.advance(by: 60)
            #expect(sessionCookie(try await browser.get("/")) == nil)
            // An active person: a page every 7 hours, 28 hours in all, longer than any one lifetime.
            for hour in [7, 14, 21, 28] {
                server.clock.advance(by: 7 * 3600)
                let page = try await browser.get("/")
                #expect(page.status == .ok, "signed out after \(hour) active hours")
                let cookie = sessionCookie(page)
                #expect(cookie?.contains(hour == 28 ? "Max-Age=7140" : "Max-Age=28800") == true, "\(hour) h: \(cookie ?? "no cookie")")
            }
            // The refresh lifetime (30 h here) bounds it however active the person is.
            server.clock.advance(by: 7140)
            #expect(try await browser.get("/").headers[.location] == "/login")

            // An idle person is signed out 8 hours after the last page, not before.
            try await browser.logIn(server, "anna")
            server.clock.advance(by: 3 * 3600)
            #expect(try await browser.get("/").status == .ok)
            server.clock.advance(by: 8 * 3600 - 1)
            #expect(try await browser.get("/").status == .ok)
            server.clock.advance(by: 8 * 3600)
            #expect(try await browser.get("/").headers[.location] == "/login")
        }
    }

    @Test("logged-out visitors are sent to /login from every account page; a form without CSRF is refused")
    func pagesNeedSessionAndCSRF() async throws {
        let server = try TestServer()
        try await server.run { client in
            let visitor = PortalBrowser(client)
            for path in ["/profile", "/studies", "/data", "/data/export.json", "/data/sheets/\(UUID().uuidString)"] {
                let response = try await visitor.get(path)
                #expect(response.status == .seeOther, "\(path)")
                #expect(response.headers[.location] == "/login", "\(path)")
            }
            let browser = try await server.loggedInPortalAccount(client, "anna")
            for path in ["/profile", "/profile/password", "/profile/deactivate", "/studies/join", "/studies/leave"] {
                #expect(try await browser.post(path, ["password": "correct horse", "study": "x", "username": "zed"]).status == .forbidden, "\(path)")
            }
            #expect(try await server.store.user(login: "anna")?.active == true)
            #expect(try await server.store.user(login: "anna")?.username == "anna")
        }
    }
}

@Suite("Portal: studies", .timeLimit(.minutes(10)))
struct PortalStudyTests {
    @Test("join and leave follow the API's rules per access kind: public, password, by request, no leaving")
    func joinAndLeavePerAccessKind() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.createStudy("secret", access: .password, password: "let me in")
        try await server.createStudy("asking", access: .byRequest)
        try await server.createStudy("bound", mayLeave: false)
        try await server.store.createStudy(StudyRecord(id: "paused", title: LocalizedText(["en": "Paused"]), running: false),
                                           now: server.clock.now())
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let list = try await browser.get("/studies")
            // Listed like the API's `available`: every study, each with the form its access asks for.
            #expect(list.text.contains(#"id="join-open""#))
            #expect(list.text.contains(#"id="join-bound""#))
            #expect(list.text.contains(#"id="study-secret""#) && list.text.contains(#"id="password-secret""#))
            #expect(list.text.contains(#"id="study-asking""#) && list.text.contains(#"id="join-asking""#))

            let noPassword = try await browser.submit("/studies", to: "/studies/join", ["study": "secret", "password": ""])
            #expect(noPassword.status == .forbidden)
            let wrong = try await browser.submit("/studies", to: "/studies/join", ["study": "secret", "password": "nope"])
            #expect(wrong.status == .forbidden)
            #expect(wrong.text.contains("This study password is wrong."))
            let right = try await browser.submit("/studies", to: "/studies/join", ["study": "secret", "password": "let me in"])
            #expect(right.headers[.location] == "/studies?notice=studyJoined")
            #expect(try await server.store.membership(studyId: "secret", userId: 1) == .member)

            let asked = try await browser.submit("/studies", to: "/studies/join", ["study": "asking"])
            #expect(asked.headers[.location] == "/studies?notice=studyRequested")
            let pending = try await browser.get("/studies")
            #expect(pending.text.contains("request pending"))
            #expect(pending.text.contains(#"id="leave-asking""#))
            #expect(!pending.text.contains(#"id="join-asking""#))

            #expect(try await browser.submit("/studies", to: "/studies/join", ["study": "bound"]).status == .seeOther)
            let stay = try await browser.get("/studies")
            #expect(!stay.text.contains(#"id="leave-bound""#))
            let forced = try await browser.submit("/studies", to: "/studies/leave", ["study": "bound"])
            #expect(forced.status == .conflict)
            #expect(forced.text.contains(#"id="error-bound""#))
            #expect(try await server.store.membership(studyId: "bound", userId: 1) == .member)

            #expect(try await browser.submit("/studies", to: "/studies/join", ["study": "open"]).status == .seeOther)
            let left = try await browser.submit("/studies", to: "/studies/leave", ["study": "open"])
            #expect(left.headers[.location] == "/studies?notice=studyLeft")
            #expect(try await server.store.membership(studyId: "open", userId: 1) == .left)
            let notMember = try await browser.submit("/studies", to: "/studies/leave", ["study": "open"])
            #expect(notMember.status == .conflict)
            // A study that is not running is listed without a join button and refuses a join.
            #expect(try await browser.get("/studies").text.contains(#"id="study-paused""#))
            #expect(!(try await browser.get("/studies").text.contains(#"id="join-paused""#)))
            let closed = try await browser.submit("/studies", to: "/studies/join", ["study": "paused"])
            #expect(closed.status == .conflict)
            #expect(closed.text.contains("This study is not running at the moment"))
            #expect(try await server.store.membership(studyId: "paused", userId: 1) == .none)
            let unknown = try await browser.submit("/studies", to: "/studies/join", ["study": "../etc"])
            #expect(unknown.status == .notFound)
            #expect(unknown.text.contains(#"id="join-error""#))
        }
    }

    @Test("a wrong study password is answered beside the form it was typed in: the study's own form in the list, or the join-by-id form with the id kept")
    func studyFailureBesideItsForm() async throws {
        let server = try TestServer()
        try await server.createStudy("secret", access: .password, password: "let me in")
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let byId = try await browser.submit("/studies", to: "/studies/join", ["study": "secret", "password": "guess", "form": "by-id"])
            #expect(byId.status == .forbidden)
            #expect(byId.text.contains(#"id="join-error""#) && byId.text.contains(#"aria-describedby="join-error""#))
            #expect(!byId.text.contains(#"id="error-secret""#), "the message belongs beside the form the person used")
            #expect(byId.text.contains(#"id="join-study" name="study" type="text" required spellcheck="false" autocapitalize="none" value="secret""#))
            let listed = try await browser.submit("/studies", to: "/studies/join", ["study": "secret", "password": "guess"])
            #expect(listed.status == .forbidden)
            #expect(listed.text.contains(#"id="error-secret""#) && !listed.text.contains(#"id="join-error""#))
        }
    }

    @Test("wrong study passwords are throttled per person and study; the portal, the API and other server processes count together")
    func studyPasswordThrottleShared() async throws {
        let server = try TestServer()
        try await server.createStudy("secret", access: .password, password: "let me in")
        try await server.createStudy("other", access: .password, password: "let me in")
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "anna")
            let token = try await client.apiToken("anna")
            // Five wrong in the portal...
            for _ in 0..<5 {
                #expect(try await browser.submit("/studies", to: "/studies/join", ["study": "secret", "password": "guess"]).status == .forbidden)
            }
            // ...and the API waits, even with the right password.
            let api = try await client.json(.post, "/api/v1/studies/secret/join", token: token, body: JoinStudyRequest(password: "let me in"))
            #expect(api.status == .tooManyRequests)
            #expect(api.errorCode == "too_many_study_attempts")
            #expect(api.headers[.retryAfter] == "2")
            // Another study, and another person, are not held back.
            let elsewhere = try await client.json(.post, "/api/v1/studies/other/join", token: token, body: JoinStudyRequest(password: "let me in"))
            #expect(elsewhere.status == .ok)

            // The other way: five wrong on the API, then the page says how long to wait.
            let bertToken = try await client.signUp("bert", on: server)
            for _ in 0..<5 {
                let response = try await client.json(.post, "/api/v1/studies/secret/join", token: bertToken, body: JoinStudyRequest(password: "guess"))
                #expect(response.errorCode == "wrong_study_password")
            }
            let bert = PortalBrowser(client)
            try await bert.logIn(server, "bert")
            let page = try await bert.submit("/studies", to: "/studies/join", ["study": "secret", "password": "let me in"])
            #expect(page.status == .tooManyRequests)
            #expect(page.text.contains("Too many wrong study passwords; wait 2 seconds before trying again."))
            #expect(try await server.store.membership(studyId: "secret", userId: 2) == .none)

            // The count is in the store: another server process on the database waits as well.
            try await run(try secondProcess(of: server)) { other in
                let elsewhere = try await other.json(.post, "/api/v1/studies/secret/join", token: bertToken, body: JoinStudyRequest(password: "let me in"))
                #expect(elsewhere.status == .tooManyRequests)
            }

            // Once the wait is over the right password joins, and a success clears the count.
            server.clock.advance(by: 3)
            #expect(try await bert.submit("/studies", to: "/studies/join", ["study": "secret", "password": "let me in"]).status == .seeOther)
            #expect(try await server.store.membership(studyId: "secret", userId: 2) == .member)
            // The delay doubles per further failure: a sixth wrong one asks for 4 seconds.
            #expect(try await browser.submit("/studies", to: "/studies/join", ["study": "secret", "password": "guess"]).status == .forbidden)
            let longer = try await client.json(.post, "/api/v1/studies/secret/join", token: token, body: JoinStudyRequest(password: "guess"))
            #expect(longer.headers[.retryAfter] == "4")
        }
    }
}

extension PortalStudyTests {
    @Test("twelve wrong study passwords sent at once get five 403s and seven 429s: check and count are one step")
    func studyPasswordGuessesAtOnce() async throws {
        let server = try TestServer()
        try await server.createStudy("secret", access: .password, password: "let me in")
        try await server.run { client in
            let token = try await client.signUp("mallory", on: server)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for guess in 0..<12 {
                    group.addTask {
                        try await client.json(.post, "/api/v1/studies/secret/join", token: token,
                                              body: JoinStudyRequest(password: "guess \(guess)")).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .forbidden }.count == 5)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 7)
        }
    }
}

@Suite("Portal: CSRF key, mail links", .timeLimit(.minutes(10)))
struct PortalSharedKeyAndMailTests {
    @Test("two server processes on one database accept each other's CSRF tokens, and a restart keeps open forms valid")
    func csrfKeySharedAndKept() async throws {
        let server = try TestServer()
        let second = try secondProcess(of: server)
        try await server.run { first in
            let browser = PortalBrowser(first)
            try await server.portalAccount(browser, "anna")
            // A form shown by the first process (visitor token) ...
            let token = try #require(PortalBrowser.csrf(in: try await browser.get("/login").text))
            let cookies = browser.cookies
            try await run(second) { other in
                let elsewhere = PortalBrowser(other)
                elsewhere.cookies = cookies
                // ... is accepted by the second process.
                let login = try await elsewhere.post("/login", ["login": "anna", "password": "correct horse", "csrf": token])
                #expect(login.headers[.location] == "/")
                // A logged-in form from the second process is accepted by the first.
                let secondToken = try #require(PortalBrowser.csrf(in: try await elsewhere.get("/profile").text))
                browser.cookies = elsewhere.cookies
                let saved = try await browser.post("/profile", ["username": "anna", "gender": "diverse", "language": "en", "csrf": secondToken])
                #expect(saved.headers[.location] == "/profile?notice=profileSaved")
            }
            #expect(try await server.store.user(login: "anna")?.gender == .diverse)
            let profileToken = try #require(PortalBrowser.csrf(in: try await browser.get("/profile").text))
            let sessionCookies = browser.cookies
            let saved = try await browser.post("/profile", ["username": "anna", "gender": "female", "language": "en", "csrf": profileToken])
            #expect(saved.headers[.location] == "/profile?notice=profileSaved")

            // A restart: a new store and router on the same file take the open form.
            let restarted = try secondProcess(of: server)
            try await run(restarted) { client in
                let after = PortalBrowser(client)
                after.cookies = sessionCookies
                let again = try await after.post("/profile", ["username": "anna", "gender": "male", "language": "en", "csrf": profileToken])
                #expect(again.headers[.location] == "/profile?notice=profileSaved")
                #expect(try await after.post("/profile", ["username": "anna", "gender": "male", "language": "en", "csrf": "forged"]).status == .forbidden)
            }
        }
        let keys = try await server.store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM server_secrets") }
        #expect(keys == 1)
        #expect(try await server.store.user(login: "anna")?.gender == .male)
    }

    @Test("with --public-url, mails link to the portal page with the code filled in; the GET changes nothing")
    func mailLinks() async throws {
        let server = try TestServer()
        var environment = server.environment
        environment.publicURL = ServeCommand.portalBase("https://study.example.org/")
        try await run(environment) { client in
            _ = try await client.json(.post, "/api/v1/account/register",
                                      body: RegisterRequest(username: "anna", email: "anna@example.org", password: "correct horse", language: "de"))
            let code = try await server.mailedCode(to: "anna@example.org", subject: "aktivieren")
            let mail = try await mailText(server, to: "anna@example.org", subject: "aktivieren")
            #expect(mail.contains("Im Browser: https://study.example.org/activate?code=\(code)"))

            let browser = PortalBrowser(client)
            let form = try await browser.get("/activate?code=\(code)")
            #expect(form.status == .ok)
            #expect(form.text.contains(#"value="\#(code)""#))
            #expect(try await server.store.user(login: "anna")?.activated == false)
            #expect(try await browser.get("/activate?code=%22%3E%3Cscript%3E").text.contains("<script>") == false)
            let activated = try await browser.post("/activate", ["code": code, "csrf": try #require(PortalBrowser.csrf(in: form.text))])
            #expect(activated.headers[.location] == "/login?notice=activated")
            #expect(try await server.store.user(login: "anna")?.activated == true)

            _ = try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "anna@example.org"))
            let reset = try await server.mailedCode(to: "anna@example.org", subject: "Passwort")
            #expect(try await mailText(server, to: "anna@example.org", subject: "Passwort").contains("https://study.example.org/password/reset?code=\(reset)"))
            #expect(try await browser.get("/password/reset?code=\(reset)").text.contains(#"value="\#(reset)""#))
        }
        // Without the option, the code alone, as before.
        try await server.run { client in
            _ = try await client.json(.post, "/api/v1/account/register",
                                      body: RegisterRequest(username: "bert", email: "bert@example.org", password: "correct horse"))
            #expect(try await !mailText(server, to: "bert@example.org").contains("http"))
        }
        #expect(ServeCommand.portalBase("ftp://x.org") == nil)
        #expect(ServeCommand.portalBase("https://x.org/?a=1") == nil)
        #expect(ServeCommand.portalBase("https://x.org/portal/") == "https://x.org/portal")
    }

    /// The mail to `address` whose subject contains `subject` (the spool's order is by a clock
    /// that stands still in tests, so the subject tells the mails apart).
    private func mailText(_ server: TestServer, to address: String, subject: String = "") async throws -> String {
        await server.environment.mail.idle()
        for message in try server.spool.messages().reversed() {
            let text = try String(contentsOf: message.url, encoding: .utf8)
            let subjectLine = MailHeader.value("Subject", in: text) ?? ""
            if text.contains("To: \(address)\r\n"), subject.isEmpty || subjectLine.contains(subject) { return text }
        }
        throw TestFailure("no mail to \(address)")
    }
}

@Suite("Portal: my data", .timeLimit(.minutes(10)))
struct PortalDataTests {
    /// Tables whose rows belong to one person: a `user_id` column, the `users` table itself, or a
    /// foreign key to such a table (answers belong to a sheet).
    static func personalTables(_ store: ServerStore) async throws -> Set<String> {
        try await store.pool.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'")
            var personal: Set<String> = ["users"]
            var grew = true
            while grew {
                grew = false
                for table in tables where !personal.contains(table) {
                    let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { $0["name"] as String }
                    let parents = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(table))").map { $0["table"] as String }
                    if columns.contains("user_id") || parents.contains(where: personal.contains) {
                        personal.insert(table)
                        grew = true
                    }
                }
            }
            return personal
        }
    }

    @Test("every table with per-user rows is covered by the download (a table added later fails here)")
    func exportCoversEveryPersonalTable() async throws {
        let server = try TestServer()
        let personal = try await Self.personalTables(server.store)
        #expect(personal.isSuperset(of: ["users", "sessions", "memberships", "answer_sheets", "answers", "module_records"]))
        let covered = Set(ServerStore.personalDataSections.keys)
        #expect(personal.subtracting(covered).isEmpty, "not in the personal data download: \(personal.subtracting(covered).sorted())")
    }

    @Test("the download holds the person's account, studies, sheets, records, rewards and logins, no secret, nobody else's")
    func downloadCompleteAndIsolated() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.createStudy("secret", access: .password, password: "let me in")
        try await server.addQuestionnaire(study: "open", module: .tyt)
        try await server.run { client in
            let anna = try await server.loggedInPortalAccount(client, "anna")
            #expect(try await anna.submit("/studies", to: "/studies/join", ["study": "secret", "password": "guess"]).status == .forbidden)
            let annaToken = try await client.apiToken("anna")
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: annaToken, body: JoinStudyRequest())
            // The team's rule raises an alert about anna's loud answer: it is hers to read too.
            var loud = AlertRule(name: "Loud answer", kind: .safety, roles: [.owner], reviewed: false)
            (loud.questionnaireId, loud.item, loud.comparison, loud.threshold) = ("daily", "loudness", .atLeast, 70)
            _ = try await server.store.addAlertRule(studyId: "open", loud, actor: .operator, now: server.clock.now())
            let annaSheet = sheet(loudness: 77, mood: 3)
            #expect(try await client.json(.post, "/api/v1/sheets", token: annaToken, body: AnswerSheetBatch(sheets: [annaSheet])).status == .ok)
            _ = try await client.json(.post, "/api/v1/records", token: annaToken, body: ModuleRecordBatch(records: [
                ModuleRecordUpsert(moduleId: "tn", clientId: "anna-event", updatedAt: "2027-01-01T08:00:00Z", payload: .string("tinnitus louder")),
            ]))
            let annaPrompt = PromptEvent(promptId: "tys/daily/2027-01-01T09:00", moduleId: "tys", questionnaireId: "daily", kind: .delivered,
                                         at: annaSheet.startedAt, dueAt: annaSheet.startedAt)
            #expect(try await client.json(.post, "/api/v1/prompts/events", token: annaToken,
                                          body: PromptEventBatch(events: [annaPrompt])).status == .ok)
            let bertToken = try await client.signUp("bert", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: bertToken, body: JoinStudyRequest())
            let bertSheet = sheet(loudness: 12)
            _ = try await client.json(.post, "/api/v1/sheets", token: bertToken, body: AnswerSheetBatch(sheets: [bertSheet]))
            _ = try await client.json(.post, "/api/v1/records", token: bertToken, body: ModuleRecordBatch(records: [
                ModuleRecordUpsert(moduleId: "tn", clientId: "bert-event", updatedAt: "2027-01-01T08:00:00Z", payload: .string("bert's secret")),
            ]))

            // Anna is randomised in the study's trial: her download names the allocation, not the arm.
            let trials = TrialService(administration: StudyAdministration(store: server.store, actor: .operator, now: server.clock.now()))
            _ = try await trials.setUp(studyId: "open", design: Data(#"""
                {"arms": [{"id": "secret-arm-a", "label": "Arm label A", "ratio": 1}, {"id": "secret-arm-b", "label": "Arm label B", "ratio": 1}],
                 "factors": [], "method": "blocks"}
                """#.utf8))
            let annaPseudonym = try #require(try await server.store.user(login: "anna")).pseudonym
            _ = try await trials.randomise(studyId: "open", pseudonym: annaPseudonym, entered: [:])
            // A screening each, kept with the person's leave (as a study's screening keeps it).
            for (name, kept) in [("anna", annaSheet), ("bert", bertSheet)] {
                let userId = try #require(try await server.store.user(login: name)).id
                try await server.store.logScreening(ScreeningEntry(screenedAt: server.clock.now(), site: nil, userId: userId, eligible: false,
                                                                   failed: ["age"], answers: try JSONCoding.string(kept)), studyId: "open")
            }

            server.clock.advance(by: 10)
            try await AlertMonitor(environment: server.environment).check(conditions: false)
            let download = try await anna.get("/data/export.json")
            #expect(download.status == .ok)
            #expect(download.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"uniti-data-") == true)
            let text = download.text
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            // Every section the store fills is present and holds anna's rows.
            for section in Set(ServerStore.personalDataSections.values) {
                let value = try #require(json[section], "section \(section) is missing")
                if let list = value as? [Any] { #expect(!list.isEmpty, "section \(section) is empty") }
            }
            #expect((json["account"] as? [String: Any])?["email"] as? String == "anna@example.org")
            #expect(text.contains(annaSheet.id.uuidString))
            #expect(!text.contains("secret-arm") && !text.contains("Arm label"), "the download withholds the arm")
            #expect(((json["allocations"] as? [[String: Any]])?.first?["number"] as? Int) == 1)
            #expect(text.contains("tinnitus louder"))
            #expect(text.contains("Loud answer"))
            #expect(text.contains(annaPrompt.id.uuidString.lowercased()) || text.contains(annaPrompt.id.uuidString))
            #expect(text.contains("\"rewards\""))
            // No secret: no hash of the password, a session, a refresh token or a mailed code.
            let stored = try #require(try await server.store.user(login: "anna"))
            #expect(!text.contains(stored.passwordHash))
            #expect(!text.contains("$2"))
            #expect(!text.lowercased().contains("hash"))
            let hashes = try await server.store.pool.read { db in
                try String.fetchAll(db, sql: "SELECT access_hash FROM sessions UNION ALL SELECT refresh_hash FROM sessions UNION ALL SELECT token_hash FROM mail_tokens")
            }
            #expect(!hashes.contains { text.contains($0) })
            // Nobody else's data.
            #expect(!text.contains(bertSheet.id.uuidString))
            #expect(!text.contains("bert"))

            // The sheet list and one sheet; another person's sheet is not found.
            let data = try await anna.get("/data")
            #expect(data.text.contains("/data/sheets/\(annaSheet.id.uuidString.lowercased())"))
            #expect(data.text.contains(">Daily</a>"))
            #expect(!data.text.contains(bertSheet.id.uuidString.lowercased()))
            let one = try await anna.get("/data/sheets/\(annaSheet.id.uuidString.lowercased())")
            #expect(one.status == .ok)
            #expect(one.text.contains("<dt>How loud?</dt>"))
            #expect(one.text.contains("<dd>77 "))
            #expect(one.text.contains("<dd>good "))
            let foreign = try await anna.get("/data/sheets/\(bertSheet.id.uuidString.lowercased())")
            #expect(foreign.status == .notFound)
        }
    }

    @Test("the sheet list is paged newest first: every sheet on exactly one page, links between pages, a page past the end shows the last")
    func sheetListPaged() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open", module: .tyt)
        try await server.run { client in
            let anna = try await server.loggedInPortalAccount(client, "anna")
            let user = try #require(try await server.store.user(login: "anna")).id
            let start = TestTime.now
            let sheets = (0..<120).map { index in
                sheet(startedAt: OffsetTimestamp(start.addingTimeInterval(Double(index) * 3600), in: TimeZone(secondsFromGMT: 3600)!).text)
            }
            _ = try await server.store.storeSheets(userId: user, sheets: sheets.map { ValidatedSheet(sheet: $0, studyId: "open") }, receivedAt: start)
            var seen: [String] = []
            for page in 1...3 {
                let html = try await anna.get("/data?page=\(page)").text
                seen += sheets.map { $0.id.uuidString.lowercased() }.filter { html.contains("/data/sheets/\($0)") }
                #expect(html.contains("Page \(page) of 3"))
                #expect(html.contains(#"href="/data?page=\#(page + 1)" id="older-page""#) == (page < 3))
                #expect(html.contains(#"href="/data?page=\#(page - 1)" id="newer-page""#) == (page > 1))
            }
            #expect(seen.count == 120 && Set(seen).count == 120)
            // Newest first: the last sheet started is on the first page, the first on the last.
            #expect(try await anna.get("/data").text.contains(sheets[119].id.uuidString.lowercased()))
            let past = try await anna.get("/data?page=99").text
            #expect(past.contains("Page 3 of 3") && past.contains(sheets[0].id.uuidString.lowercased()))
            #expect(try await anna.get("/data?page=-4").text.contains("Page 1 of 3"))
        }
    }
}
