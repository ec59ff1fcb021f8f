import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// What an operator reads off a running `uniti-server`: one log line per request without a
/// person's data, security events with their request id, and `/metrics` on its own listener.
/// Real binary, real HTTP through curl (libcurl), real SQLite.
@Suite("Request logs and metrics of the real server", .timeLimit(.minutes(10)))
struct ServerOperationsTests {
    /// The journey's personal values: none may appear in the log.
    static let username = "marlene_kowalski"
    static let email = "marlene.kowalski@example.org"
    static let password = "Marlene-Secret-7"
    static let wrongPassword = "Guessed-Wrong-55"
    static let guessedLogin = "hedwig_guess"
    static let studyPassword = "Study-Secret-314"
    static let wrongStudyPassword = "Study-Guess-271"
    static let freeText = "Ringing after the concert in Oslo"
    /// The client's address as the proxy on loopback names it (`X-Forwarded-For`).
    static let clientAddress = "203.0.113.77"

    @Test("a full journey logs one JSON line per request with id, method, route pattern, status and duration, security events with their request id, and no personal value or IP address")
    func requestLogHoldsNoPersonalData() async throws {
        let server = try Self.Server(["--log-format", "json"])
        defer { server.stop() }
        try server.coordinator(["study", "create", "closed", "--title", "Closed", "--modules", "tyt,son", "--running",
                                "--access", "password", "--password", Self.studyPassword])
        try server.coordinator(["questionnaire", "import", try server.questionnaireWithText(), "--study", "closed"])
        let http = Curl(directory: server.directory, headers: ["X-Forwarded-For": Self.clientAddress])

        // Register, activate, a wrong login, a login.
        #expect(try http.post(server.url + "/api/v1/account/register",
                              json: RegisterRequest(username: Self.username, email: Self.email, password: Self.password)).status == 201)
        let code = try #require(try server.mailedCode())
        #expect(try http.post(server.url + "/api/v1/account/activate", json: TokenRequest(token: code)).status == 200)
        #expect(try http.post(server.url + "/api/v1/account/login", json: LoginRequest(login: Self.username, password: Self.wrongPassword)).status == 401)
        let login = try http.post(server.url + "/api/v1/account/login", json: LoginRequest(login: Self.email, password: Self.password))
        #expect(login.status == 200)
        let tokens = try JSONDecoder().decode(SessionTokens.self, from: Data(login.body.utf8))

        // A wrong study password, sent with the proxy's request id; then the right one.
        let refused = try http.post(server.url + "/api/v1/studies/closed/join", json: JoinStudyRequest(password: Self.wrongStudyPassword),
                                    token: tokens.accessToken, headers: ["X-Request-ID": "proxy-7f3a"])
        #expect(refused.status == 403)
        #expect(refused.headers["x-request-id"] == "proxy-7f3a")
        let joined = try http.post(server.url + "/api/v1/studies/closed/join", json: JoinStudyRequest(password: Self.studyPassword),
                                   token: tokens.accessToken)
        #expect(joined.status == 200)
        let madeID = try #require(joined.headers["x-request-id"])
        // An id that is no plain token is not taken into the log: the server makes its own.
        let odd = try http.get(server.url + "/health", headers: ["X-Request-ID": "x\" injected=1"])
        #expect(odd.headers["x-request-id"].map { $0.count == 16 && $0.allSatisfy(\.isHexDigit) } == true, "\(odd.headers)")

        // An upload with free text, the pull, the person's data download.
        var answered = sheet(questionnaire: "noted")
        answered.answers["notes"] = Answer(value: .text(Self.freeText), answeredAt: answered.startedAt)
        #expect(try http.post(server.url + "/api/v1/sheets", json: AnswerSheetBatch(sheets: [answered]), token: tokens.accessToken).status == 200)
        #expect(try http.get(server.url + "/api/v1/sheets/changes", token: tokens.accessToken).body.contains(Self.freeText))
        #expect(try http.get(server.url + "/api/v1/account/data", token: tokens.accessToken).body.contains(Self.email))

        // The portal: log in, the pages, the export; a form without its CSRF token is refused.
        let session = try http.portalLogin(server.url, login: Self.username, password: Self.password)
        for page in ["/", "/studies", "/data", "/questionnaires", "/data/export.json"] {
            #expect(try http.get(server.url + page).status == 200, "\(page)")
        }
        #expect(try http.post(server.url + "/logout", form: [:]).status == 403)
        // Guesses at a name without an account: after five, the login throttle answers 429.
        let guesses = try (0..<6).map { _ in
            try http.post(server.url + "/api/v1/account/login", json: LoginRequest(login: Self.guessedLogin, password: Self.wrongPassword)).status
        }
        #expect(guesses == [401, 401, 401, 401, 401, 429])
        server.stop()

        let lines = server.log.split(separator: "\n").map(String.init)
        let objects = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "not a JSON line: \(line)")
        }
        let requests = objects.filter { $0["message"] == "request" }
        #expect(requests.count == http.requestsMade, "\(requests.count) request lines for \(http.requestsMade) requests")
        for line in requests {
            #expect(Set(line.keys).isSuperset(of: ["time", "level", "request_id", "method", "route", "status", "duration_ms"]), "\(line)")
            // The duration in milliseconds to one decimal.
            #expect(line["duration_ms"]?.wholeMatch(of: /[0-9]+\.[0-9]/) != nil, "\(line)")
        }
        // A request id the server makes is 16 hexadecimal digits.
        #expect(madeID.wholeMatch(of: /[0-9a-f]{16}/) != nil, "\(madeID)")
        let join = try #require(requests.first { $0["request_id"] == "proxy-7f3a" })
        #expect(join["route"] == "/api/v1/studies/{id}/join" && join["method"] == "POST" && join["status"] == "403")
        #expect(requests.contains { $0["request_id"] == madeID && $0["status"] == "200" })
        #expect(requests.contains { $0["route"] == "/data/export.json" && $0["status"] == "200" })
        let events = objects.filter { $0["message"] == "security event" }
        #expect(events.contains { $0["event"] == "study_password_refused" && $0["request_id"] == "proxy-7f3a" })
        #expect(events.contains { $0["event"] == "login_refused" && $0["request_id"] != nil })
        #expect(events.contains { $0["event"] == "csrf_refused" && $0["request_id"] != nil })
        #expect(events.filter { $0["event"] == "login_throttled" }.count == 1)

        let personal = [Self.username, Self.email, Self.password, Self.wrongPassword, Self.guessedLogin, Self.studyPassword, Self.wrongStudyPassword,
                        Self.freeText, code, tokens.accessToken, tokens.refreshToken, session, Self.clientAddress]
        #expect(!server.log.contains("injected"))
        for value in personal {
            #expect(!server.log.contains(value), "the log holds '\(value)'")
        }
        // The peer's own address neither: only Hummingbird's line naming where it listens has it.
        #expect(lines.filter { $0.contains("127.0.0.1") && !$0.contains("Server started") }.isEmpty)
    }

    @Test("throttled registrations and study-password guesses are logged as security events with their request id, counted in /metrics, and the guessed values are nowhere in the log")
    func throttledRequestsAreSecurityEvents() async throws {
        let server = try Self.Server(["--log-format", "json", "--metrics-port", "0"])
        defer { server.stop() }
        try server.coordinator(["study", "create", "closed", "--title", "Closed", "--modules", "tyt", "--running",
                                "--access", "password", "--password", Self.studyPassword])
        let http = Curl(directory: server.directory)
        let token = try server.signUp(http)
        let before = try server.scrape()

        // Registrations for one address someone else typed: five an hour, then a wait of a minute.
        let typedAddress = "hedwig.guess@example.org"
        var registrations: [Int] = []
        for attempt in 1...6 {
            registrations.append(try http.post(server.url + "/api/v1/account/register",
                                               json: RegisterRequest(username: "hedwig_\(attempt)", email: typedAddress, password: "Hedwig-Pass-\(attempt)0"),
                                               headers: ["X-Request-ID": "register-\(attempt)"]).status)
        }
        #expect(registrations.prefix(5).allSatisfy { $0 != 429 } && registrations.last == 429, "\(registrations)")
        // Guesses at the study's password: five free, then a wait of 2 s doubling; guesses are
        // sent until one is refused unheard (a guess that came after a wait is counted instead).
        var guesses: [(id: String, guess: String, status: Int)] = []
        while guesses.count < 12, guesses.last?.status != 429 {
            let guess = "Study-Guess-\(guesses.count)-\(UUID().uuidString.prefix(6))"
            let id = "guess-\(guesses.count)"
            let status = try http.post(server.url + "/api/v1/studies/closed/join", json: JoinStudyRequest(password: guess), token: token,
                                       headers: ["X-Request-ID": id]).status
            guesses.append((id, guess, status))
        }
        #expect(guesses.prefix(5).allSatisfy { $0.status == 403 } && guesses.last?.status == 429, "\(guesses.map(\.status))")
        let after = try server.scrape()
        func moved(_ sample: String) -> Double { (after[sample] ?? 0) - (before[sample] ?? 0) }
        #expect(moved(#"uniti_security_events_total{event="mail_request_throttled"}"#) == 1)
        #expect(moved(#"uniti_security_events_total{event="study_password_throttled"}"#) == 1)
        #expect(moved(#"uniti_security_events_total{event="study_password_refused"}"#) == Double(guesses.count - 1))
        server.stop()

        let events = try server.log.split(separator: "\n").compactMap { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        }.filter { $0["message"] == "security event" }
        #expect(events.filter { $0["event"] == "mail_request_throttled" }.map { $0["request_id"] } == ["register-6"])
        #expect(events.filter { $0["event"] == "study_password_throttled" }.map { $0["request_id"] } == [guesses.last?.id])
        let guessed = [typedAddress, Self.studyPassword] + guesses.map(\.guess) + (1...6).flatMap { ["hedwig_\($0)", "Hedwig-Pass-\($0)0"] }
        for value in guessed {
            #expect(!server.log.contains(value), "the log holds '\(value)'")
        }
    }

    @Test("/metrics on its own listener parses as Prometheus text; its counters move by exactly the requests made; the public port answers 404")
    func metricsCountExactlyWhatWasDone() async throws {
        let server = try Self.Server(["--metrics-port", "0"])
        defer { server.stop() }
        try server.coordinator(["study", "create", "open", "--title", "Open", "--modules", "tyt,son", "--running"])
        let questionnaire = server.directory + "/daily.json"
        try dailyQuestionnaireJSON().write(toFile: questionnaire, atomically: true, encoding: .utf8)
        try server.coordinator(["questionnaire", "import", questionnaire, "--study", "open"])
        let http = Curl(directory: server.directory)
        let token = try server.signUp(http)
        #expect(try http.post(server.url + "/api/v1/studies/open/join", json: JoinStudyRequest(), token: token).status == 200)

        let before = try server.scrape()
        for _ in 0..<3 { #expect(try http.get(server.url + "/health").status == 200) }
        for _ in 0..<2 {
            #expect(try http.post(server.url + "/api/v1/account/login", json: LoginRequest(login: Self.username, password: Self.wrongPassword)).status == 401)
        }
        #expect(try http.post(server.url + "/api/v1/sheets", json: AnswerSheetBatch(sheets: [sheet(), sheet(), sheet()]), token: token).status == 200)
        let records = (1...2).map { ModuleRecordUpsert(moduleId: "son", clientId: "favorite-\($0)", updatedAt: "2027-01-15T09:00:00Z", payload: .object(["n": .number(Double($0))])) }
        #expect(try http.post(server.url + "/api/v1/records", json: ModuleRecordBatch(records: records), token: token).status == 200)
        _ = try http.portalLogin(server.url, login: Self.username, password: Self.password)
        let after = try server.scrape()

        func moved(_ sample: String) -> Double { (after[sample] ?? 0) - (before[sample] ?? 0) }
        #expect(moved(#"uniti_http_requests_total{method="GET",route="/health",status="200"}"#) == 3)
        #expect(moved(#"uniti_http_request_duration_seconds_count{method="GET",route="/health",status="200"}"#) == 3)
        #expect(moved(#"uniti_http_requests_total{method="POST",route="/api/v1/account/login",status="401"}"#) == 2)
        #expect(moved(#"uniti_http_requests_total{method="POST",route="/api/v1/sheets",status="200"}"#) == 1)
        #expect(moved(#"uniti_logins_refused_total{reason="wrong_credentials"}"#) == 2)
        #expect(moved(#"uniti_security_events_total{event="login_refused"}"#) == 2)
        #expect(moved("uniti_sheets_stored_total") == 3)
        #expect(moved("uniti_records_stored_total") == 2)
        #expect(after["uniti_portal_sessions_active"] == 1)
        // A latency histogram: buckets up to +Inf, which holds every request.
        #expect(after[#"uniti_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/health",status="200"}"#]
                    == after[#"uniti_http_request_duration_seconds_count{method="GET",route="/health",status="200"}"#])
        // Never on the public port.
        let publicMetrics = try http.get(server.url + "/metrics")
        #expect(publicMetrics.status == 404)
        #expect(!publicMetrics.body.contains("uniti_http_requests_total"))
        // The text log has the same lines as the JSON one.
        server.stop()
        #expect(server.log.split(separator: "\n").contains { $0.contains("request_id=") && $0.contains("route=/health") && $0.contains("status=200") },
                "\(server.log.suffix(2000))")
    }

    // MARK: Support

    /// `uniti-server serve` on free loopback ports with its log (standard error) kept.
    final class Server: @unchecked Sendable {
        let directory: String
        let database: String
        let spool: String
        let running: Program.Running
        let url: String
        let metricsURL: String?

        init(_ arguments: [String]) throws {
            directory = NSTemporaryDirectory() + "uniti-operations-\(UUID().uuidString)"
            database = directory + "/server.sqlite"
            spool = directory + "/mail"
            try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
            running = try Program.start("uniti-server", ["serve", "--host", "127.0.0.1", "--port", "0", "--database", database,
                                                         "--mail-spool", spool, "--bcrypt-cost", "4"] + arguments)
            guard running.waitForOutput("listening on http://", timeout: 60) else {
                throw TestFailure("the server did not start: \(running.out)")
            }
            if arguments.contains("--metrics-port") {
                guard running.waitForOutput("/metrics\n", timeout: 30) else { throw TestFailure("no metrics listener: \(running.out)") }
            }
            let printed = running.out.components(separatedBy: "\n")
            func address(after marker: String) -> String? {
                printed.first { $0.contains(marker) }?.components(separatedBy: marker).last
            }
            guard let url = address(after: "listening on ") else { throw TestFailure("no address in: \(printed)") }
            self.url = url
            metricsURL = address(after: "metrics on ")
        }

        private let stopped = NSLock()
        private var result: Program.Result?

        /// Stops it (SIGTERM) and keeps what it logged.
        func stop() {
            stopped.withLock {
                guard result == nil else { return }
                running.process.terminate()
                result = running.finish()
            }
        }

        /// Its log, once stopped.
        var log: String { stopped.withLock { result?.err ?? "" } }

        func coordinator(_ arguments: [String]) throws {
            let result = try Program.run("uniti-server", arguments + ["--database", database])
            guard result.status == 0 else { throw TestFailure("\(arguments.joined(separator: " ")): \(result.err)") }
        }

        /// Registers, activates and logs in the journey's person (``username``); their access token.
        func signUp(_ http: Curl) throws -> String {
            #expect(try http.post(url + "/api/v1/account/register",
                                  json: RegisterRequest(username: ServerOperationsTests.username, email: ServerOperationsTests.email,
                                                        password: ServerOperationsTests.password)).status == 201)
            #expect(try http.post(url + "/api/v1/account/activate", json: TokenRequest(token: try #require(try mailedCode()))).status == 200)
            let login = try http.post(url + "/api/v1/account/login",
                                      json: LoginRequest(login: ServerOperationsTests.username, password: ServerOperationsTests.password))
            return try JSONDecoder().decode(SessionTokens.self, from: Data(login.body.utf8)).accessToken
        }

        /// The newest code in the spool (the server sends mail just after it answers).
        func mailedCode() throws -> String? {
            for _ in 0..<400 {
                let code = try SpoolMailer(directory: URL(fileURLWithPath: spool)).messages().sorted { $0.url.path > $1.url.path }.compactMap { message in
                    try String(contentsOf: message.url, encoding: .utf8).split(whereSeparator: \.isNewline)
                        .first { $0.hasPrefix("    ") }?.trimmingCharacters(in: .whitespaces)
                }.first
                if let code { return code }
                usleep(50_000)
            }
            return nil
        }

        /// A questionnaire `noted` with a free-text item `notes` beside the test questionnaire's items.
        func questionnaireWithText() throws -> String {
            let path = directory + "/noted.json"
            try dailyQuestionnaireJSON(id: "noted").replacingOccurrences(of: #""items": ["#, with: #""items": [{"type": "freeText", "label": "notes", "text": {"en": "Notes"}, "maxLength": 200},"#)
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        /// `/metrics` parsed by prometheus_client's text parser: each sample as
        /// `name{label="value",…}` (labels sorted) with its value.
        func scrape() throws -> [String: Double] {
            let metricsURL = try #require(metricsURL)
            let text = try Program.run("/usr/bin/curl", ["-sf", metricsURL])
            guard text.status == 0 else { throw TestFailure("scrape failed: \(text.err)") }
            let python = FHIRValidator.root.appendingPathComponent(".build-venv/tools/bin/python").path
            let script = """
                import json, sys
                from prometheus_client.parser import text_string_to_metric_families
                samples = {}
                for family in text_string_to_metric_families(sys.stdin.read()):
                    for s in family.samples:
                        labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                        samples[s.name + ("{" + labels + "}" if labels else "")] = s.value
                print(json.dumps(samples))
                """
            let parsed = try Program.run(python, ["-c", script], stdin: text.out)
            guard parsed.status == 0 else { throw TestFailure("prometheus_client could not parse /metrics: \(parsed.err)\n\(text.out)") }
            return try JSONDecoder().decode([String: Double].self, from: Data(parsed.out.utf8))
        }
    }

    /// HTTP through the curl program (libcurl), with a cookie jar, counting the requests it sends.
    final class Curl: @unchecked Sendable {
        let directory: String
        let headers: [String: String]
        private(set) var requestsMade = 0

        init(directory: String, headers: [String: String] = [:]) {
            self.directory = directory
            self.headers = headers
        }

        struct Answer {
            let status: Int
            let body: String
            /// Lower-cased names.
            let headers: [String: String]
        }

        func get(_ url: String, token: String? = nil, headers: [String: String] = [:]) throws -> Answer {
            try send(["-X", "GET"], url, token: token, headers: headers)
        }

        func post(_ url: String, json body: some Encodable, token: String? = nil, headers: [String: String] = [:]) throws -> Answer {
            try send(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-"], url, token: token, headers: headers,
                     stdin: String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
        }

        func post(_ url: String, form: [String: String]) throws -> Answer {
            let fields = form.isEmpty ? ["--data-binary", ""] : form.sorted { $0.key < $1.key }.flatMap { ["--data-urlencode", "\($0.key)=\($0.value)"] }
            return try send(["-X", "POST", "-H", "Content-Type: application/x-www-form-urlencoded"] + fields, url)
        }

        /// Logs in to the portal as a browser does (the form's CSRF token); returns the session cookie.
        func portalLogin(_ base: String, login: String, password: String) throws -> String {
            let page = try get(base + "/login")
            let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) })
            let answer = try post(base + "/login", form: ["login": login, "password": password, "csrf": csrf])
            guard answer.status == 303 else { throw TestFailure("portal login answered \(answer.status)") }
            let jar = try String(contentsOfFile: directory + "/cookies", encoding: .utf8)
            return try #require(jar.split(separator: "\n").first { $0.contains("uniti_session") }?.split(separator: "\t").last.map(String.init))
        }

        private func send(_ arguments: [String], _ url: String, token: String? = nil, headers extra: [String: String] = [:], stdin: String = "") throws -> Answer {
            requestsMade += 1
            var all = headers.merging(extra) { $1 }
            if let token { all["Authorization"] = "Bearer \(token)" }
            let body = directory + "/curl-body", head = directory + "/curl-headers", jar = directory + "/cookies"
            let result = try Program.run("/usr/bin/curl", ["-s", "-o", body, "-D", head, "-w", "%{http_code}", "-b", jar, "-c", jar]
                                         + all.sorted { $0.key < $1.key }.flatMap { ["-H", "\($0.key): \($0.value)"] } + arguments + [url],
                                         stdin: stdin)
            guard result.status == 0, let status = Int(result.out) else { throw TestFailure("curl \(url): \(result.err)") }
            var names: [String: String] = [:]
            for line in try String(contentsOfFile: head, encoding: .utf8).split(whereSeparator: \.isNewline) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                names[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return Answer(status: status, body: (try? String(contentsOfFile: body, encoding: .utf8)) ?? "", headers: names)
        }
    }
}
