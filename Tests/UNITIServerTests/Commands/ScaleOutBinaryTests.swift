import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Several real `uniti-server` processes on one PostgreSQL database behind one port (a real
/// nginx, Documentation/uniti-server.md): any process serves any request, because sessions,
/// throttles and the portal's keys live in the database, and what two processes receive at the
/// same moment is stored once.
@Suite("Two uniti-server processes on one PostgreSQL behind nginx", .timeLimit(.minutes(10)))
struct ScaleOutBinaryTests {
    /// One HTTP exchange; the header names are lower-cased.
    static func exchange(_ method: String, _ url: String, body: Data? = nil, token: String? = nil,
                         headers extra: [String: String] = [:]) async throws -> (status: Int, body: Data, headers: [String: String]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in extra { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
        return (http.statusCode, data, headers)
    }

    static func json<Body: Encodable>(_ value: Body) throws -> Data { try JSONEncoder().encode(value) }

    @Test("register through one process, use the token on both; one batch sent to both at once is stored once; the login throttle counts across both")
    func twoProcessesBehindNginx() async throws {
        let database = try await PostgresCluster.newDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-scale-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let spool = directory.appendingPathComponent("spool").path
        let questionnaire = directory.appendingPathComponent("daily.json")
        try dailyQuestionnaireJSON().write(to: questionnaire, atomically: true, encoding: .utf8)
        for command in [["study", "create", "open", "--title", "Open", "--modules", "tyt", "--running"],
                        ["questionnaire", "import", questionnaire.path, "--study", "open"]] {
            let (status, output) = try ServerBinaryTests.runCommand(command + ["--database", database])
            #expect(status == 0, "\(output)")
        }

        let first = try ServerBinaryTests.start(database: database, spool: spool)
        defer { first.process.terminate() }
        let second = try ServerBinaryTests.start(database: database, spool: spool)
        defer { second.process.terminate() }
        let front = try NginxFront(upstreams: [first.port, second.port])
        defer { front.stop() }
        let base = "http://127.0.0.1:\(front.port)"
        let direct = ["http://127.0.0.1:\(first.port)", "http://127.0.0.1:\(second.port)"]

        // Register, activate and log in through the front.
        let register = try Self.json(RegisterRequest(username: "vera", email: "vera@example.org", password: "verapassword"))
        #expect(try await Self.exchange("POST", base + "/api/v1/account/register", body: register).status == 201)
        let code = try await ServerBinaryTests.spooledCode(spool)
        #expect(try await Self.exchange("POST", base + "/api/v1/account/activate",
                                        body: try Self.json(TokenRequest(token: try #require(code)))).status == 200)
        let login = try await Self.exchange("POST", base + "/api/v1/account/login",
                                            body: try Self.json(LoginRequest(login: "vera", password: "verapassword")))
        #expect(login.status == 200)
        let token = try JSONDecoder().decode(SessionTokens.self, from: login.body).accessToken
        #expect(try await Self.exchange("POST", base + "/api/v1/studies/open/join", body: Data("{}".utf8), token: token).status == 200)

        // The session is the database's: both processes serve it.
        var served: Set<String> = []
        for _ in 0..<12 {
            let profile = try await Self.exchange("GET", base + "/api/v1/account/profile", token: token)
            #expect(profile.status == 200)
            if let upstream = profile.headers["x-upstream"] { served.insert(upstream) }
        }
        #expect(served == Set(["127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"]), "served by \(served)")

        // One batch sent to both processes at the same moment: every sheet stored exactly once.
        for _ in 0..<5 {
            let batch = try Self.json(AnswerSheetBatch(sheets: (0..<8).map { _ in sheet() }))
            async let one = Self.exchange("POST", direct[0] + "/api/v1/sheets", body: batch, token: token)
            async let two = Self.exchange("POST", direct[1] + "/api/v1/sheets", body: batch, token: token)
            let answers = try await [one, two]
            #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map { String(decoding: $0.body, as: UTF8.self) })")
            let results = try answers.map { try JSONDecoder().decode(AnswerSheetBatchResult.self, from: $0.body).results }
            for index in 0..<8 {
                #expect([results[0][index].outcome, results[1][index].outcome].filter { $0 == .stored }.count == 1)
            }
        }
        let page = try await Self.exchange("GET", base + "/api/v1/sheets?limit=1", token: token)
        #expect(try JSONDecoder().decode(AnswerSheetPage.self, from: page.body).total == 40)

        // Wrong passwords spread over both processes are counted together: the sixth waits.
        let wrong = try Self.json(LoginRequest(login: "vera", password: "not her password"))
        for attempt in 0..<5 {
            #expect(try await Self.exchange("POST", direct[attempt % 2] + "/api/v1/account/login", body: wrong).status == 401)
        }
        for address in direct {
            let refused = try await Self.exchange("POST", address + "/api/v1/account/login",
                                                  body: try Self.json(LoginRequest(login: "VERA", password: "verapassword")))
            #expect(refused.status == 429)
            #expect(refused.headers["retry-after"] != nil)
        }
    }
}
