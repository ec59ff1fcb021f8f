import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
import GRDB
@testable import UNITIServer

/// One in-process server per test: a fresh SQLite file and mail spool in a temporary directory,
/// a hand-moved clock and a cheap bcrypt cost.
struct TestServer {
    let directory: URL
    let store: ServerStore
    let clock = ManualServerClock()
    let environment: ServerEnvironment
    var spool: SpoolMailer { environment.mailer as! SpoolMailer }
    var databasePath: String { directory.appendingPathComponent("server.sqlite").path }

    init(minimumParticipants: Int = 5, modules: ServerModules = serverModuleParts) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-server-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try ServerStore(sqlitePath: directory.appendingPathComponent("server.sqlite").path, modules: modules)
        environment = ServerEnvironment(
            store: store, mailer: SpoolMailer(directory: directory.appendingPathComponent("spool"), clock: clock),
            clock: clock, passwords: PasswordHasher(cost: 4), comparisonMinimumParticipants: minimumParticipants)
    }

    /// Runs `body` against the server driven in-process, with its mail queue running (stopped,
    /// and so drained, when `body` returns).
    func run(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await runInProcess(environment, body)
    }

    // MARK: Fixtures made the way a coordinator makes them

    func createStudy(_ id: String, access: StudyAccess = .public, password: String? = nil, mayLeave: Bool = true,
                     modules: [ModuleID] = [.tyt]) async throws {
        let hash = password.map { Bcrypt4.hash($0) }
        try await store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": "Study \(id)"]), access: access,
                                                passwordHash: hash, participantsMayLeave: mayLeave, modules: modules),
                                    now: clock.now())
    }

    /// A two-item questionnaire: `loudness` slider 0–100 (step 1) and `mood` single choice 1–3.
    func addQuestionnaire(_ id: String = "daily", version: Int = 1, study: String, module: ModuleID? = nil) async throws {
        let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: id, version: version).utf8), studyId: study)
        _ = try await store.addQuestionnaire(document, module: module, now: clock.now())
    }

    /// Writes the test questionnaire with this id to a file, for `questionnaire import`.
    func questionnaireFile(_ id: String, version: Int = 1) throws -> String {
        let file = directory.appendingPathComponent("\(id)-\(version).json")
        try Data(dailyQuestionnaireJSON(id: id, version: version).utf8).write(to: file)
        return file.path
    }

    /// The code from a mail to `address` whose subject contains `subject`, once the mail queue
    /// has sent what it holds.
    func mailedCode(to address: String, subject: String = "activate") async throws -> String {
        await environment.mail.idle()
        for message in try spool.messages().reversed() {
            let text = try String(contentsOf: message.url, encoding: .utf8)
            let lines = text.split(whereSeparator: \.isNewline)
            guard lines.contains("To: \(address)"), MailHeader.value("Subject", in: text)?.contains(subject) == true else { continue }
            if let line = lines.first(where: { $0.hasPrefix("    ") }) {
                return line.trimmingCharacters(in: .whitespaces)
            }
        }
        throw TestFailure("no mail to \(address)")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

import HummingbirdBcrypt
enum Bcrypt4 {
    static func hash(_ text: String) -> String { Bcrypt.hash(text, cost: 4) }
}

// MARK: Requests

extension TestClientProtocol {
    @discardableResult
    func json<Body: Encodable>(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, body: Body,
                               headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = extra
        headers[.contentType] = "application/json"
        if let token { headers[.authorization] = "Bearer \(token)" }
        let data = try JSONEncoder().encode(body)
        return try await execute(uri: uri, method: method, headers: headers, body: ByteBuffer(bytes: data)) { $0 }
    }

    @discardableResult
    func get(_ uri: String, token: String? = nil, headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: uri, method: .get, headers: headers) { $0 }
    }

    @discardableResult
    func post(_ uri: String, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: uri, method: .post, headers: headers) { $0 }
    }

    /// Registers, activates (code read from the spool) and logs in; returns the access token.
    func signUp(_ name: String, on server: TestServer, password: String = "correct horse") async throws -> String {
        let email = "\(name)@example.org"
        let created = try await json(.post, "/api/v1/account/register",
                                     body: RegisterRequest(username: name, email: email, password: password))
        #expect(created.status == .created)
        let activated = try await json(.post, "/api/v1/account/activate", body: TokenRequest(token: try await server.mailedCode(to: email)))
        #expect(activated.status == .ok)
        let login = try await json(.post, "/api/v1/account/login", body: LoginRequest(login: name, password: password))
        #expect(login.status == .ok)
        return try login.decode(SessionTokens.self).accessToken
    }
}

extension TestResponse {
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(body.readableBytesView))
    }

    var errorCode: String? {
        (try? decode(APIErrorBody.self))?.error.code
    }

    var text: String { String(buffer: body) }
}

/// The test questionnaire in the core format.
func dailyQuestionnaireJSON(id: String = "daily", version: Int = 1) -> String {
    """
    {"id": "\(id)", "version": \(version), "title": {"en": "Daily"}, "kind": "oneTime",
     "items": [
       {"type": "slider", "label": "loudness", "required": true, "text": {"en": "How loud?"}, "min": 0, "max": 100, "step": 1},
       {"type": "singleChoice", "label": "mood", "text": {"en": "Mood?"},
        "options": [{"value": 1, "text": {"en": "bad"}}, {"value": 2, "text": {"en": "so-so"}}, {"value": 3, "text": {"en": "good"}}]}
     ]}
    """
}

/// A sheet for the test questionnaire.
func sheet(_ id: UUID = UUID(), loudness: Double = 40, mood: Double = 2, questionnaire: String = "daily",
           version: Int = 1, startedAt: String = "2027-01-15T09:00:00+01:00") -> AnswerSheet {
    let started = OffsetTimestamp(parsing: startedAt)!
    let answered = OffsetTimestamp(started.date.addingTimeInterval(60), in: TimeZone(secondsFromGMT: started.offsetSeconds)!)
    let ended = OffsetTimestamp(started.date.addingTimeInterval(300), in: TimeZone(secondsFromGMT: started.offsetSeconds)!)
    return AnswerSheet(id: id, questionnaireID: questionnaire, questionnaireVersion: version,
                       answers: ["loudness": Answer(value: .number(loudness), answeredAt: answered),
                                 "mood": Answer(value: .number(mood), answeredAt: ended)],
                       startedAt: started, endedAt: ended, clientVersion: "uniti-test 1",
                       sensors: SensorReadings(microphone: MicrophoneReading(dbfs: -42.5, measuredAt: answered)))
}

/// Runs a `uniti-server` subcommand in-process, as a coordinator would on the command line.
func runServerCommand(_ arguments: [String]) async throws {
    // As the program's main does: the commands open the store with the program's module parts.
    ServerModules.bootstrap(serverModuleParts)
    var command = try UNITIServerCommand.parseAsRoot(arguments)
    if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
    } else {
        try command.run()
    }
}

extension ServerStore {
    /// The SQLite database's pool, for tests that look at the tables themselves.
    var pool: DatabasePool { (database as! SQLiteDatabase).pool }
}
