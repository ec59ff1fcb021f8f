import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Participant portal", .timeLimit(.minutes(10)))
struct PortalTests {
    @Test("the session cookie is HttpOnly, SameSite=Lax and path-wide; Secure only when the page came over TLS (here: the trusted loopback proxy says so)")
    func sessionCookieAttributes() async throws {
        let server = try TestServer()
        try await runLive(server.environment) { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            let login = try await server.portalLogin(browser, "anna")
            #expect(login.status == .seeOther)
            #expect(login.headers[.location] == "/")
            let cookie = try #require(login.headers[values: .setCookie].first { $0.hasPrefix("uniti_session=") })
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            #expect(cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))

            let proxied = PortalBrowser(client)
            proxied.extraHeaders[HTTPField.Name("X-Forwarded-Proto")!] = "https"
            let overTLS = try await server.portalLogin(proxied, "anna")
            let secureCookie = try #require(overTLS.headers[values: .setCookie].first { $0.hasPrefix("uniti_session=") })
            #expect(secureCookie.contains("Secure"))
            #expect(secureCookie.contains("HttpOnly"))
        }
    }

    @Test("a form posted without its CSRF token, or with another session's, is refused 403 and changes nothing")
    func csrfRefusal() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            // Logged out: no token, or a token without its signed cookie.
            let bare = try await browser.post("/login", ["login": "anna", "password": "correct horse"])
            #expect(bare.status == .forbidden)
            #expect(bare.text.contains("did not come from this site"))
            let stranger = PortalBrowser(client)
            let forged = try await stranger.post("/login", ["login": "anna", "password": "correct horse", "csrf": "made.up"])
            #expect(forged.status == .forbidden)
            #expect(stranger.cookies["uniti_session"] == nil)

            #expect(try await server.portalLogin(browser, "anna").status == .seeOther)
            let noToken = try await browser.post("/logout", [:])
            #expect(noToken.status == .forbidden)
            // Another session's token does not fit this one.
            let other = PortalBrowser(client)
            _ = try await server.portalLogin(other, "anna")
            let otherToken = try #require(PortalBrowser.csrf(in: try await other.get("/").text))
            #expect(try await browser.post("/logout", ["csrf": otherToken]).status == .forbidden)
            // Still logged in: the refused posts did nothing.
            #expect(try await browser.get("/").status == .ok)
        }
    }

    @Test("every portal response carries the CSP, nosniff, no-referrer and frame headers; pages are no-store")
    func securityHeaders() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            var responses = [try await browser.get("/login"), try await browser.get("/register"), try await browser.get("/"),
                             try await browser.post("/login", [:])]
            try await server.portalAccount(browser, "anna")
            responses.append(try await server.portalLogin(browser, "anna"))
            responses.append(try await browser.get("/"))
            for response in responses {
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.contains("default-src 'self'"))
                #expect(policy.contains("script-src 'self'"))
                #expect(!policy.contains("unsafe-inline"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            let css = try await browser.get("/portal.css")
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.xContentTypeOptions] == "nosniff")
            // The API is untouched: JSON, no portal headers.
            let health = try await client.get("/health")
            #expect(health.headers[.contentSecurityPolicy] == nil)
        }
    }

    @Test("the database holds only a hash of the session cookie, distinct from any API token hash")
    func sessionStoredHashed() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            _ = try await server.portalLogin(browser, "anna")
            let secret = try #require(browser.cookies["uniti_session"])
            let hashes = try await server.store.pool.read { db in try String.fetchAll(db, sql: "SELECT access_hash FROM sessions") }
            #expect(hashes == [PortalSessions.storedHash(of: secret)])
            #expect(!hashes.contains(secret))
            #expect(!hashes.contains(SecretTokens.hash(secret)))
            // The cookie is no bearer token for the API.
            #expect(try await client.get("/api/v1/account/profile", token: secret).status == .unauthorized)
        }
    }

    @Test("logout and a password reset end the portal session; the old cookie opens nothing")
    func sessionEnds() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            _ = try await server.portalLogin(browser, "anna")
            let secret = try #require(browser.cookies["uniti_session"])
            let start = try await browser.get("/")
            #expect(start.text.contains(#"<strong id="username">anna</strong>"#))
            let token = try #require(PortalBrowser.csrf(in: start.text))
            let out = try await browser.post("/logout", ["csrf": token])
            #expect(out.headers[.location] == "/login?notice=loggedOut")
            #expect(out.headers[values: .setCookie].contains { $0.hasPrefix("uniti_session=;") && $0.contains("Max-Age=0") })
            browser.cookies["uniti_session"] = secret  // a copy of the old cookie
            let replay = try await browser.get("/")
            #expect(replay.status == .seeOther)
            #expect(replay.headers[.location] == "/login")

            let again = PortalBrowser(client)
            _ = try await server.portalLogin(again, "anna")
            #expect(try await again.get("/").status == .ok)
            _ = try await browser.submit("/password/forgot", to: "/password/forgot", ["email": "anna@example.org"])
            let code = try await server.mailedCode(to: "anna@example.org", subject: "reset")
            let reset = try await PortalBrowser(client).submit("/password/reset", to: "/password/reset",
                                                               ["code": code, "password": "new horse battery", "passwordRepeat": "new horse battery"])
            #expect(reset.headers[.location] == "/login?notice=passwordChanged")
            #expect(try await again.get("/").headers[.location] == "/login")
            #expect(try await server.portalLogin(PortalBrowser(client), "anna", password: "new horse battery").headers[.location] == "/")
        }
    }

    @Test("changing the password through the API ends the portal session, not the session that changed it")
    func apiPasswordChangeEndsPortalSessions() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("anna", on: server)
            let browser = PortalBrowser(client)
            _ = try await server.portalLogin(browser, "anna")
            #expect(try await browser.get("/").status == .ok)
            let changed = try await client.json(.post, "/api/v1/account/password", token: token,
                                                body: PasswordChangeRequest(currentPassword: "correct horse", newPassword: "new horse battery"))
            #expect(changed.status == .ok)
            #expect(try await browser.get("/").headers[.location] == "/login")
            #expect(try await client.get("/api/v1/account/profile", token: token).status == .ok)
        }
    }

    @Test("the start page lists the person's studies with their standing, in the page's language")
    func startPageListsMemberships() async throws {
        let server = try TestServer()
        try await server.createStudy("noise")
        try await server.createStudy("clinic", access: .byRequest)
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            let account = try #require(try await server.store.user(login: "anna"))
            try await server.store.setMembership(studyId: "noise", userId: account.id, status: .member, now: server.clock.now())
            try await server.store.setMembership(studyId: "clinic", userId: account.id, status: .pending, now: server.clock.now())
            _ = try await server.portalLogin(browser, "anna")
            let start = try await browser.get("/")
            #expect(start.text.contains("<tr><td>Study noise</td><td>member</td></tr>"))
            #expect(start.text.contains("<tr><td>Study clinic</td><td>request pending</td></tr>"))
            browser.cookies["uniti_language"] = "de"
            #expect(try await browser.get("/").text.contains("<td>Anfrage offen</td>"))
        }
    }

    @Test("what a visitor typed comes back escaped: a script in the login field is shown as text")
    func echoedInputIsEscaped() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            let failed = try await server.portalLogin(browser, "<script>alert(1)</script>\"'&", password: "wrong password")
            #expect(failed.status == .unauthorized)
            #expect(failed.text.contains(#"value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;""#))
            #expect(!failed.text.contains("<script>alert"))
            #expect(failed.text.contains("The login or the password is wrong."))
        }
    }

    /// The one kind of value a template prints as it is: a study's Markdown (a consent, the words
    /// for someone its screening found not eligible) as HTML, which
    /// ``MarkdownText`` builds from escaped text and the few elements Markdown makes (its own tests
    /// try every way in), by template and variable.
    static let markdownHTML: Set<String> = ["studies.mustache {{{consentHTML}}}", "console_consent.mustache {{{html}}}",
                                            "screening.mustache {{{consentHTML}}}", "screening.mustache {{{ineligibleHTML}}}"]

    @Test("no template prints a value unescaped (no {{{ }}} or {{& }}) but a consent's Markdown made safe")
    func templatesEscapeEverything() throws {
        // The server's templates and every module part's (the health record's moved there).
        let folders = [PortalTemplates.shipped, ConsoleRoutes.shipped] + serverModuleParts.parts(PortalPagesProviding.self).map(\.portalTemplates)
        #expect(folders.count >= 3)
        let files = folders.flatMap(\.files).filter { $0.path.hasSuffix(".mustache") }
        #expect(files.count >= 8)
        #expect(files.contains { $0.path == "record-event-form.mustache" })
        #expect(files.contains { $0.path == "console_layout.mustache" })
        for file in files {
            var text = file.text
            for allowed in Self.markdownHTML where allowed.hasPrefix(file.path + " ") {
                text = text.replacingOccurrences(of: String(allowed.dropFirst(file.path.count + 1)), with: "")
            }
            #expect(!text.contains("{{{"), "\(file.path) uses triple mustache")
            #expect(!text.contains("{{&"), "\(file.path) uses {{& }}")
        }
        let templates = try PortalTemplates.with(.none).get()
        let visit = PortalVisit(language: "en", session: nil, csrfToken: "", secure: false, path: "/")
        let html = try templates.render(ErrorPage(), PortalLayout(visit, error: "<img src=x onerror=alert(1)>"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
    }

    @Test("failed portal logins throttle the API login for the same name, and the portal says how long to wait")
    func throttleIsShared() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            for _ in 0..<5 {
                #expect(try await server.portalLogin(browser, "anna", password: "wrong password").status == .unauthorized)
            }
            let throttled = try await server.portalLogin(browser, "anna")
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.text.contains("Too many failed logins; wait 2 seconds"))
            let api = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "anna", password: "correct horse"))
            #expect(api.status == .tooManyRequests)
            #expect(api.errorCode == "too_many_attempts")
        }
    }

    @Test("registration uses the API's rules and messages, in the page's language")
    func registrationRules() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            let bad = try await browser.submit("/register", to: "/register",
                                               ["username": "12", "email": "x@example.org", "password": "longenough", "passwordRepeat": "longenough"])
            #expect(bad.status == .unprocessableContent)
            #expect(bad.text.contains("A username has 3 to 32 letters"))
            browser.extraHeaders[.acceptLanguage] = "fr;q=1, de-AT;q=0.8, en;q=0.5"
            let german = try await browser.submit("/register", to: "/register",
                                                  ["username": "anna", "email": "anna@example.org", "password": "short", "passwordRepeat": "short"])
            #expect(german.text.contains(#"<html lang="de">"#))
            #expect(german.text.contains("Ein Passwort braucht mindestens 8 Zeichen."))
            // The mail goes out in the page's language.
            _ = try await browser.submit("/register", to: "/register",
                                         ["username": "anna", "email": "anna@example.org", "password": "longenough", "passwordRepeat": "longenough"])
            #expect(try await server.mailedCode(to: "anna@example.org", subject: "aktivieren").count == 26)
        }
    }

    @Test("the language switch sets a cookie and returns to the same page, now in German")
    func languageSwitch() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            let switched = try await browser.submit("/login", to: "/language", ["language": "de", "back": "/login"])
            #expect(switched.status == .seeOther)
            #expect(switched.headers[.location] == "/login")
            #expect(browser.cookies["uniti_language"] == "de")
            #expect(try await browser.get("/login").text.contains("Benutzername oder E-Mail"))
            let offsite = try await browser.submit("/login", to: "/language", ["language": "en", "back": "//evil.example"])
            #expect(offsite.headers[.location] == "/")
        }
    }

    @Test("without the portal, / is not served while /health and the API answer as before")
    func portalCanBeTurnedOff() async throws {
        let server = try TestServer()
        let app = Application(router: ServerApplication.router(environment: server.environment, portal: false),
                              services: ServerApplication.services(server.environment))
        try await app.test(.router) { (client: any TestClientProtocol) async throws in
            #expect(try await client.get("/").status == .notFound)
            #expect(try await client.get("/login").status == .notFound)
            #expect(try await client.get("/health").status == .ok)
        }
    }
}
