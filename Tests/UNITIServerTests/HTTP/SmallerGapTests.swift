import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: smaller gaps", .timeLimit(.minutes(10)))
struct SmallerGapTests {
    static func expectPortalHeaders(_ response: TestResponse, _ what: String) {
        #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(what)")
        #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true, "\(what)")
        #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(what)")
        #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(what)")
        #expect(response.headers[.cacheControl] == "no-store", "\(what)")
    }

    @Test("an unknown portal path is an HTML page with the portal's headers; an unknown API path stays JSON")
    func unknownPortalPath() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            browser.extraHeaders[.acceptLanguage] = "de"
            let missing = try await browser.get("/no/such/page")
            #expect(missing.status == .notFound)
            Self.expectPortalHeaders(missing, "404")
            #expect(missing.text.contains(#"<html lang="de">"#))
            let api = try await client.get("/api/v1/no-such-route")
            #expect(api.status == .notFound)
            #expect(api.errorCode == "not_found")
        }
    }

    @Test("a form too large for the portal is an HTML page with the portal's headers naming the limit in kB")
    func oversizedForm() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            let page = try await browser.get("/register")
            let csrf = try #require(PortalBrowser.csrf(in: page.text))
            let big = try await browser.post("/register", ["csrf": csrf, "username": String(repeating: "a", count: 70_000)])
            #expect(big.status == .contentTooLarge)
            Self.expectPortalHeaders(big, "413")
            #expect(big.text.contains("64 kB"), "\(big.text)")
            #expect(!big.text.contains("65536"))
            let huge = try await browser.post("/register", ["csrf": csrf, "username": String(repeating: "a", count: 1_100_000)])
            #expect(huge.status == .contentTooLarge)
            Self.expectPortalHeaders(huge, "413 beyond the server's limit")
        }
    }

    @Test("API responses with personal data or tokens are Cache-Control: no-store")
    func apiNoStore() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("nora", on: server)
            let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "nora", password: "correct horse"))
            #expect(login.headers[.cacheControl] == "no-store", "tokens")
            for path in ["/api/v1/account/profile", "/api/v1/sheets", "/api/v1/sheets/changes", "/api/v1/records", "/api/v1/studies",
                         "/api/v1/studies/open", "/api/v1/questionnaires", "/api/v1/rewards"] {
                let response = try await client.get(path, token: token)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers[.cacheControl] == "no-store", "\(path)")
            }
        }
    }

    @Test("the language switch returns only to a path of this site, after removing control characters")
    func languageBackStaysOnSite() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            for back in ["/\t/evil.example/path", "//evil.example", "/\r\n/evil.example", "https://evil.example/",
                         "\t//evil.example", "/\\evil.example"] {
                let switched = try await browser.submit("/login", to: "/language", ["language": "de", "back": back])
                #expect(switched.headers[.location] == "/", "\(back.debugDescription) → \(switched.headers[.location] ?? "")")
            }
            let same = try await browser.submit("/login", to: "/language", ["language": "en", "back": "/data?page=2"])
            #expect(same.headers[.location] == "/data?page=2")
        }
    }

    @Test("a password change in the portal renews the session: a new cookie, and the old one opens nothing")
    func passwordChangeRenewsSession() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = try await server.loggedInPortalAccount(client, "otto")
            let before = try #require(browser.cookies["uniti_session"])
            let changed = try await browser.submit("/profile", to: "/profile/password",
                                                   ["currentPassword": "correct horse", "password": "new horse 1", "passwordRepeat": "new horse 1"])
            #expect(changed.status == .seeOther)
            let after = try #require(browser.cookies["uniti_session"])
            #expect(after != before)
            #expect(try await browser.get("/profile").status == .ok)
            let stale = PortalBrowser(client)
            stale.cookies["uniti_session"] = before
            #expect(try await stale.get("/profile").headers[.location] == "/login")
        }
    }

    @Test("a password or by-request study's description is shown to its members (and pending applicants), not to whoever knows its id")
    func closedStudyDescription() async throws {
        let server = try TestServer()
        let described = LocalizedText(["en": "Protocol 7: internal details"])
        for (id, access) in [("secret", StudyAccess.password), ("curated", .byRequest), ("open", .public)] {
            try await server.store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": id]), description: described,
                                                           consent: LocalizedText(["en": "I agree."]), access: access,
                                                           passwordHash: access == .password ? Bcrypt4.hash("the password") : nil,
                                                           modules: [.tyt]), now: server.clock.now())
        }
        try await server.run { client in
            let stranger = try await client.signUp("uwe", on: server)
            for id in ["secret", "curated"] {
                let shown = try await client.get("/api/v1/studies/\(id)", token: stranger).decode(StudyInfo.self)
                #expect(shown.description == nil, "\(id)")
                #expect(shown.consent != nil, "\(id): the consent is what joining means, so it is shown before joining")
            }
            #expect(try await client.get("/api/v1/studies/open", token: stranger).decode(StudyInfo.self).description == described)
            let member = try await client.signUp("vera", on: server)
            _ = try await client.json(.post, "/api/v1/studies/secret/join", token: member,
                                      body: JoinStudyRequest(password: "the password", consentVersion: 1))
            _ = try await client.json(.post, "/api/v1/studies/curated/join", token: member, body: JoinStudyRequest(consentVersion: 1))
            for id in ["secret", "curated"] {
                #expect(try await client.get("/api/v1/studies/\(id)", token: member).decode(StudyInfo.self).description == described, "\(id)")
            }
        }
    }

    @Test("another study's questionnaire is answered like an unknown one by the version and comparison routes")
    func otherStudysQuestionnaire() async throws {
        let server = try TestServer()
        try await server.createStudy("secret", access: .password, password: "the password")
        try await server.addQuestionnaire("hidden", study: "secret")
        try await server.run { client in
            let token = try await client.signUp("willi", on: server)
            let other = try await client.get("/api/v1/questionnaires/hidden/versions/1", token: token)
            let unknown = try await client.get("/api/v1/questionnaires/nothing/versions/1", token: token)
            #expect(other.status == .notFound && unknown.status == .notFound)
            #expect(other.errorCode == unknown.errorCode)
            #expect(other.text.replacingOccurrences(of: "hidden", with: "nothing") == unknown.text)
            let compared = try await client.get("/api/v1/comparison?questionnaire=hidden&label=loudness", token: token)
            let compareUnknown = try await client.get("/api/v1/comparison?questionnaire=nothing&label=loudness", token: token)
            #expect(compared.status == .notFound && compareUnknown.status == .notFound)
            #expect(compared.text.replacingOccurrences(of: "hidden", with: "nothing") == compareUnknown.text)
        }
    }
}
