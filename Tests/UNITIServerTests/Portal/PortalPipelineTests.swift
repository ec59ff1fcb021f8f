import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
@testable import UNITIServer

/// The portal on Hummingbird's request pipeline (issue 28.3): the session is resolved by
/// ``PortalSessionMiddleware``, the signed-in pages are one route group behind
/// ``RequirePortalSignIn``, and ``CSRFCheck`` checks every posted form before its handler.
/// Walking the router's routes makes a page added later outside the group fail here.
@Suite("The portal's route groups", .timeLimit(.minutes(5)))
struct PortalPipelineTests {
    /// The portal routes a visitor without a session may reach. A new entry here is a decision,
    /// not a default.
    static let publicPages: Set<String> = [
        "GET /login", "POST /login", "POST /reactivate", "GET /register", "POST /register", "GET /activate", "POST /activate",
        "GET /password/forgot", "POST /password/forgot", "GET /password/reset", "POST /password/reset",
        "POST /logout", "POST /language", "GET /portal.css", "GET /portal.js",
    ]

    /// The portal's routes (every route the router has with the portal and not without it, but the
    /// staff console's: ``ConsolePipelineTests``), as "METHOD /path" with the path's parameters filled in.
    static func routes(_ environment: ServerEnvironment) -> [NamedRoute] {
        let api = Set(NamedRoute.all(ServerApplication.router(environment: environment, portal: false)).map(\.name))
        return NamedRoute.all(ServerApplication.router(environment: environment))
            .filter { !api.contains($0.name) && !$0.uri.hasPrefix("/console") }
    }

    @Test("every portal page outside the public ones sends a visitor without a session to /login, also with a valid form token")
    func everyOtherPageNeedsASession() async throws {
        let server = try TestServer()
        let routes = Self.routes(server.environment)
        #expect(Self.publicPages.isSubset(of: Set(routes.map(\.name))), "a public route named here no longer exists: \(routes.map(\.name))")
        let guarded = routes.filter { !Self.publicPages.contains($0.name) }
        #expect(guarded.count >= 30, "\(guarded.map(\.name))")
        try await server.run { client in
            // A visitor's own double-submit token passes the CSRF check, so a POST reaches the gate.
            let visitor = PortalBrowser(client)
            let token = try #require(PortalBrowser.csrf(in: try await visitor.get("/login").text))
            for route in guarded {
                let response = route.method == .post ? try await visitor.post(route.uri, ["csrf": token]) : try await visitor.get(route.uri)
                #expect(response.status == .seeOther, "\(route.name): \(response.status)")
                #expect(response.headers[.location] == "/login", "\(route.name)")
            }
            // A cookie that names no session is no session.
            visitor.cookies[PortalSessions.cookieName] = "made-up"
            for route in guarded where route.method == .get {
                #expect(try await visitor.get(route.uri).headers[.location] == "/login", "\(route.name)")
            }
        }
    }

    @Test("every portal form refuses a missing or another session's CSRF token with the 403 page, and nothing happens")
    func everyFormChecksItsToken() async throws {
        let server = try TestServer()
        let posts = Self.routes(server.environment).filter { $0.method == .post }
        #expect(posts.count >= 20, "\(posts.map(\.name))")
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            _ = try await server.portalLogin(browser, "anna")
            let other = PortalBrowser(client)
            _ = try await server.portalLogin(other, "anna")
            let otherToken = try #require(PortalBrowser.csrf(in: try await other.get("/").text))
            for route in posts {
                for fields in [[:], ["csrf": otherToken], ["csrf": ""]] {
                    // Fields that would act if the check let them through.
                    let form = fields.merging(["password": "correct horse", "study": "1", "language": "de", "login": "anna"]) { $1 }
                    let response = try await browser.post(route.uri, form)
                    #expect(response.status == .forbidden, "\(route.name) with \(fields)")
                    #expect(response.text.contains("did not come from this site"), "\(route.name)")
                }
            }
            // Still signed in, still active, still in English: no refused form did anything.
            let start = try await browser.get("/")
            #expect(start.status == .ok)
            #expect(start.text.contains(#"<html lang="en">"#))
            #expect(browser.cookies[PortalText.languageCookie] == nil)
        }
    }

    @Test("a script in a study title, a free-text answer or a therapy note is shown as text, never run")
    func valuesAreEscapedOnEveryPage() async throws {
        let server = try TestServer()
        let script = "<script>alert(1)</script>"
        try await server.store.createStudy(StudyRecord(id: "pilot", title: LocalizedText(["en": "Pilot \(script)"]), access: .public,
                                                       passwordHash: nil, participantsMayLeave: true, modules: [.tys]),
                                           now: server.clock.now())
        let document = try QuestionnaireImport.document(from: Data(everyTypeQuestionnaireJSON().utf8), studyId: "pilot")
        _ = try await server.store.addQuestionnaire(document, module: .tys, now: server.clock.now())
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "anna")
            _ = try await server.portalLogin(browser, "anna")
            #expect(try await browser.submit("/studies", to: "/studies/join", ["study": "pilot"]).status == .seeOther)
            let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
            for page in ["/", "/studies"] {
                let html = try await browser.get(page).text
                #expect(html.contains("Pilot \(escaped)"), "\(page)")
                #expect(!html.contains(script), "\(page)")
            }
            // q10 is the multi-line free text of the every-type questionnaire.
            let saved = try await browser.submit("/questionnaires/every-type", to: "/questionnaires/every-type",
                                                 ["action": "save", "q10": script])
            #expect(saved.status == .seeOther)
            let questionnaire = try await browser.get("/questionnaires/every-type").text
            #expect(questionnaire.contains(">\(escaped)</textarea>"))
            #expect(!questionnaire.contains(script))
            let therapy = try await browser.submit("/record/therapies/new", to: "/record/therapies",
                                                   ["name": "TRT", "type": "trt", "start": "2026-11-05", "note": script])
            #expect(therapy.status == .seeOther)
            let therapies = try await browser.get("/record/therapies").text
            #expect(therapies.contains(escaped))
            #expect(!therapies.contains(script))
        }
    }
}
