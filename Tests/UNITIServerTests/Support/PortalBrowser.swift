import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
@testable import UNITIServer

/// A browser's memory for in-process portal tests: the cookies the server set, sent back on
/// every request, and the CSRF token of the last page.
final class PortalBrowser: @unchecked Sendable {
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]
    var extraHeaders: HTTPFields = [:]

    init(_ client: any TestClientProtocol) { self.client = client }

    @discardableResult
    func get(_ uri: String) async throws -> TestResponse {
        try keep(await client.execute(uri: uri, method: .get, headers: headers()) { $0 })
    }

    @discardableResult
    func post(_ uri: String, _ fields: [String: String]) async throws -> TestResponse {
        var headers = headers()
        headers[.contentType] = "application/x-www-form-urlencoded"
        let body = fields.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        return try keep(await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body)) { $0 })
    }

    /// Gets a page, then posts its form with the page's CSRF token.
    @discardableResult
    func submit(_ page: String, to uri: String, _ fields: [String: String]) async throws -> TestResponse {
        let shown = try await get(page)
        var fields = fields
        let token = try #require(Self.csrf(in: shown.text))
        fields["csrf"] = token
        return try await post(uri, fields)
    }

    static func csrf(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    private func headers() -> HTTPFields {
        var headers = extraHeaders
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        return headers
    }

    private func keep(_ response: TestResponse) -> TestResponse {
        for line in response.headers[values: .setCookie] {
            let pair = line.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || line.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return response
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }
}

extension TestServer {
    /// An activated account made through the portal's own pages.
    func portalAccount(_ browser: PortalBrowser, _ name: String, password: String = "correct horse") async throws {
        let created = try await browser.submit("/register", to: "/register",
                                               ["username": name, "email": "\(name)@example.org", "password": password, "passwordRepeat": password])
        #expect(created.status == .seeOther)
        let activated = try await browser.submit("/activate", to: "/activate", ["code": try await mailedCode(to: "\(name)@example.org")])
        #expect(activated.headers[.location] == "/login?notice=activated")
    }

    func portalLogin(_ browser: PortalBrowser, _ login: String, password: String = "correct horse") async throws -> TestResponse {
        try await browser.submit("/login", to: "/login", ["login": login, "password": password])
    }

    /// A browser signed in to the portal as `name`, with an account made through the portal's pages.
    func signedInBrowser(_ client: any TestClientProtocol, _ name: String) async throws -> PortalBrowser {
        let browser = PortalBrowser(client)
        try await portalAccount(browser, name)
        #expect(try await portalLogin(browser, name).status == .seeOther)
        return browser
    }
}
