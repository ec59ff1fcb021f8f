import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

/// The two doors of study administration, the console and the `uniti-server` subcommands, on one
/// store: a rule is run through each and the refusal compared by its code (the console's page
/// words it from the string tables, `console.error.<code>`; the command line's error is the
/// service's ``APIError``).
struct Doors {
    let fixture: ConsoleFixture
    let database: String

    /// The code the command refuses with; nil when it did what it was asked.
    func command(_ arguments: [String]) async -> String? {
        do {
            try await runServerCommand(arguments + ["--database", database])
            return nil
        } catch let error as APIError {
            return error.code
        } catch let problems as QuestionnaireProblems {
            return "questionnaire: " + problems.problems.joined(separator: " | ")
        } catch {
            return "unexpected: \(error)"
        }
    }

    /// The code of the console page's error line (the `console.error.` key whose English text it
    /// is; the console's table has it as `error_<code>`); nil for a page without one (a redirect: done).
    static func console(_ response: TestResponse) -> String? {
        guard let match = response.text.firstMatch(of: #/<p class="error" role="alert" id="error">([^<]*)</p>/#) else { return nil }
        let text = unescaped(String(match.1))
        let key = PortalText.consoleTable("en").first { $0.key.hasPrefix("error_") && $0.value == text }?.key
        return key.map { String($0.dropFirst("error_".count)) } ?? "text: \(text)"
    }

    /// The questionnaire page's problem list.
    static func problems(_ response: TestResponse) -> [String] {
        guard let list = response.text.firstMatch(of: #/<ul id="problems">((?s).*?)</ul>/#) else { return [] }
        return String(list.1).matches(of: #/<li>([^<]*)</li>/#).map { unescaped(String($0.1)) }
    }

    static func unescaped(_ html: String) -> String {
        html.replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension StoreKind {
    /// A console on a fresh store of this kind, study `alpha` (by request, owner `olga`, editor
    /// `ed`) and `beta` (owner `sam`), and the two doors on it.
    func withDoors(_ body: @escaping @Sendable (Doors, any TestClientProtocol, _ owner: PortalBrowser, _ editor: PortalBrowser) async throws -> Void)
        async throws {
        try await with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                try await fixture.study("alpha")
                try await fixture.study("beta")
                let olga = try await fixture.enrolledStaff("olga"), ed = try await fixture.enrolledStaff("ed"), sam = try await fixture.enrolledStaff("sam")
                try await fixture.role(.owner, olga, "alpha")
                try await fixture.role(.editor, ed, "alpha")
                try await fixture.role(.owner, sam, "beta")
                let owner = PortalBrowser(client), editor = PortalBrowser(client)
                try await fixture.signIn(owner, olga)
                try await fixture.signIn(editor, ed)
                try await body(Doors(fixture: fixture, database: opened.location), client, owner, editor)
            }
        }
    }
}

@Suite("One rule book: each rule through the console and the command line, the same answer (SQLite and PostgreSQL)", .timeLimit(.minutes(15)))
struct RuleBookTests {
    static let settings = "/console/studies/alpha/settings"
    static let team = "/console/studies/alpha/team"

    @Test("study settings: no title, a short password, a password study without one, the end before the start, an unknown module, an unknown language, a consent missing a language of the title; each refused alike, nothing changed",
          arguments: StoreKind.allCases)
    func studySettings(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, _, owner, _ in
            let form = ["titleEn": "Alpha", "access": "byRequest", "module-tyt": "on"]
            let cases: [(code: String, console: [String: String], command: [String])] = [
                ("invalid_title", ["titleEn": "  "], ["--title", " "]),
                ("weak_study_password", ["access": "password", "password": "short"], ["--access", "password", "--password", "short"]),
                ("weak_study_password", ["access": "password"], ["--access", "password"]),
                ("invalid_dates", ["starts": "2027-02-01", "ends": "2027-01-01"], ["--starts", "2027-02-01T00:00:00Z", "--ends", "2027-01-01T00:00:00Z"]),
                ("unknown_module", ["module-chess": "on"], ["--modules", "tyt,chess"]),
                ("unknown_language", ["languageFirst": "fr", "language-el": "on"], ["--languages", "el,fr"]),
                ("consent_missing", [:], ["--title", #"{"en":"Alpha","de":"Alpha (de)"}"#, "--consent", "Only English."]),
            ]
            let before = try await doors.fixture.store.study(id: "alpha")
            for rule in cases {
                if rule.code != "consent_missing" {
                    let page = try await owner.submit(Self.settings, to: Self.settings, form.merging(rule.console) { $1 })
                    #expect(page.status == .unprocessableContent && Doors.console(page) == rule.code, "console: \(rule.code)")
                }
                #expect(await doors.command(["study", "update", "alpha"] + rule.command) == rule.code, "command line: \(rule.code)")
            }
            // The consent page: a title in English and German needs both texts.
            #expect(await doors.command(["study", "update", "alpha", "--title", #"{"en":"Alpha","de":"Alpha (de)"}"#]) == nil)
            let consent = try await owner.submit("/console/studies/alpha/consent", to: "/console/studies/alpha/consent",
                                                 ["consent-en": "Only English.", "consent-de": ""])
            #expect(consent.status == .unprocessableContent && consent.text.contains(#"id="error-consent-de""#))
            #expect(await doors.command(["study", "update", "alpha", "--consent", "Only English."]) == "consent_missing")
            var after = try #require(try await doors.fixture.store.study(id: "alpha"))
            after.title = try #require(before).title
            #expect(after == before, "nothing but the title changed")
        }
    }

    @Test("the last owner: stepping down through the team form, `staff role`, `staff unassign` or `staff disable` is refused; with a second owner each works",
          arguments: StoreKind.allCases)
    func lastOwner(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, _, owner, _ in
            let olga = "olga@team.example.org"
            let demoted = try await owner.submit(Self.team, to: Self.team, ["email": olga, "role": "viewer", "name": "Olga"])
            #expect(demoted.status == .unprocessableContent && Doors.console(demoted) == "last_owner", "setRole through the console (was 303)")
            let removed = try await owner.submit(Self.team, to: "\(Self.team)/remove", ["email": olga, "confirm": "yes"])
            #expect(Doors.console(removed) == "last_owner")
            #expect(await doors.command(["staff", "role", "alpha", olga, "viewer"]) == "last_owner")
            #expect(await doors.command(["staff", "unassign", "alpha", olga]) == "last_owner")
            #expect(await doors.command(["staff", "disable", olga]) == "last_owner")
            #expect(try await doors.fixture.store.studyTeam(studyId: "alpha").filter { $0.role == .owner }.map(\.member.email) == [olga])
            #expect(try await owner.get("/console/studies/alpha/audit").status == .ok, "the owner still reaches the team's pages")

            #expect(await doors.command(["staff", "role", "alpha", "ed@team.example.org", "owner"]) == nil)
            let stepped = try await owner.submit(Self.team, to: Self.team, ["email": olga, "role": "viewer", "name": "Olga"])
            #expect(stepped.status == .seeOther)
            #expect(await doors.command(["staff", "unassign", "alpha", olga]) == nil)
            #expect(await doors.command(["staff", "unassign", "alpha", "ed@team.example.org"]) == "last_owner")
        }
    }

    @Test("re-uploading a stored definition unchanged with another module moves the questionnaire and writes a line naming both modules, through either door",
          arguments: StoreKind.allCases)
    func moduleMoveIsAudited(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, _, _, editor in
            let definition = dailyQuestionnaireJSON(id: "alpha-daily")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-rule-\(UUID().uuidString).json")
            try Data(definition.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(await doors.command(["questionnaire", "import", file.path, "--study", "alpha", "--module", "tys"]) == nil)
            let page = "/console/studies/alpha/questionnaires"
            #expect(try await editor.submit(page, to: page, ["definition": definition, "module": "tyh"]).status == .seeOther)
            #expect(try await doors.fixture.store.questionnaireLink(id: "alpha-daily")?.module == .tyh)
            #expect(await doors.command(["questionnaire", "import", file.path, "--study", "alpha", "--module", "tn"]) == nil)
            let moves = try await doors.fixture.store.auditTrail(studyId: "alpha").filter { $0.action == "questionnaire.module" }
            #expect(moves.map { $0.detail["changes"]?["module"] } == [
                .object(["from": .string("tys"), "to": .string("tyh")]), .object(["from": .string("tyh"), "to": .string("tn")]),
            ])
            let ed = try #require(try await doors.fixture.store.staffMember(email: "ed@team.example.org"))
            #expect(moves.map(\.actor) == [.staff(ed.id), .operator])
        }
    }

    @Test("a questionnaire id of another team's study is refused as any taken id, naming no study, through either door",
          arguments: StoreKind.allCases)
    func takenIdNamesNoStudy(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, _, _, editor in
            _ = try await StudyAdministration(store: doors.fixture.store, actor: .operator, now: doors.fixture.clock.now())
                .importQuestionnaire(Data(dailyQuestionnaireJSON(id: "shared-daily").utf8), into: "beta", module: nil)
            let page = "/console/studies/alpha/questionnaires"
            for version in [1, 2] {
                let refused = try await editor.submit(page, to: page, ["definition": dailyQuestionnaireJSON(id: "shared-daily", version: version)])
                #expect(refused.status == .unprocessableContent)
                #expect(Doors.problems(refused) == [PortalText.text("console.error.questionnaire_owned", "en")],
                        "version \(version), stored there or not: \(Doors.problems(refused))")
                #expect(!refused.text.contains("beta"), "the other study is not named")
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-rule-\(UUID().uuidString).json")
            try Data(dailyQuestionnaireJSON(id: "shared-daily").utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            do {
                try await runServerCommand(["questionnaire", "import", file.path, "--study", "alpha", "--database", doors.database])
                Issue.record("imported another study's questionnaire id")
            } catch let error as APIError {
                #expect(error.code == "questionnaire_owned" && !error.message.contains("beta"), "\(error.message)")
            }
        }
    }

    @Test("a definition with problems: the console lists the problems the command line prints, and neither stores it", arguments: StoreKind.allCases)
    func questionnaireProblems(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, _, _, editor in
            let broken = dailyQuestionnaireJSON(id: "alpha-daily").replacingOccurrences(of: #""min": 0, "max": 100"#, with: #""min": 100, "max": 0"#)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-rule-\(UUID().uuidString).json")
            try Data(broken.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let page = "/console/studies/alpha/questionnaires"
            let listed = Doors.problems(try await editor.submit(page, to: page, ["definition": broken]))
            #expect(!listed.isEmpty)
            #expect(await doors.command(["questionnaire", "import", file.path, "--study", "alpha"]) == "questionnaire: " + listed.joined(separator: " | "))
            #expect(try await doors.fixture.store.latestQuestionnaires(studyId: "alpha").isEmpty)
        }
    }

    @Test("a join decision applies to an open request: an editor cannot turn a member into 'denied', nor can `join-requests deny`; a pending request is decided alike",
          arguments: StoreKind.allCases)
    func joinDecisions(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, client, _, editor in
            _ = try await doors.fixture.participant(client, "pat", joining: "alpha")
            let pat = try #require(try await doors.fixture.store.user(login: "pat"))
            let page = "/console/studies/alpha/participants"
            let denied = try await editor.submit(page, to: "\(page)/decide", ["participant": pat.pseudonym, "decision": "deny"])
            #expect(denied.status == .unprocessableContent && Doors.console(denied) == "no_request", "was 303")
            #expect(await doors.command(["join-requests", "deny", "alpha", "pat"]) == "no_request")
            #expect(try await doors.fixture.store.membership(studyId: "alpha", userId: pat.id) == .member)

            let quin = try await doors.fixture.store.createUser(username: "quin", email: "quin@example.org", passwordHash: "x", language: "en",
                                                                pseudonym: "p-000000000077", now: doors.fixture.clock.now())
            try await doors.fixture.store.setMembership(studyId: "alpha", userId: quin, status: .pending, now: doors.fixture.clock.now())
            #expect(await doors.command(["join-requests", "deny", "alpha", "quin"]) == nil)
            #expect(try await editor.submit(page, to: "\(page)/decide", ["participant": "p-000000000077", "decision": "approve"]).status == .seeOther,
                    "a denied request may still be approved")
            #expect(await doors.command(["join-requests", "approve", "alpha", "quin"]) == "no_request", "a member has no request")
        }
    }

    @Test("a staff member is disabled by the same policy from both doors' rule book: never oneself, an administrator only by one, a member of other teams' studies only by an administrator",
          arguments: StoreKind.allCases)
    func disablePolicy(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, _, owner, _ in
            let fixture = doors.fixture
            let vic = try await fixture.enrolledStaff("vic")
            try await fixture.role(.viewer, vic, "alpha")
            try await fixture.role(.viewer, vic, "beta")
            let olga = try #require(try await fixture.store.staffMember(email: "olga@team.example.org"))
            let asOwner = StudyAdministration(store: fixture.store, actor: .staff(olga.id), now: fixture.clock.now())
            let vicMember = try #require(try await fixture.store.staffMember(id: vic.id))
            let refused = try #require(await #expect(throws: APIError.self) { _ = try await asOwner.disable(vicMember) })
            #expect(refused.code == "disable_other_studies")
            let page = try await owner.submit(Self.team, to: "\(Self.team)/disable", ["email": vic.email, "confirm": "yes"])
            #expect(Doors.console(page) == "disable_other_studies")
            await #expect(throws: APIError.self) { _ = try await asOwner.disable(olga) }
            #expect(await doors.command(["staff", "disable", vic.email]) == nil, "the operator may")
            #expect(try await fixture.store.studyRoles(staffId: vic.id).isEmpty)
        }
    }
}

/// Issue 43 (it lives in the same code): `study update S --consent consent.txt` stored the path
/// as the consent text, and participants were asked to agree to `/path/consent.txt`.
@Suite("study --consent reads a file of any name, or refuses a value that names none", .timeLimit(.minutes(5)))
struct ConsentFileTests {
    @Test("a value naming an existing file is read whatever its extension (its language from NAME.<lang>.EXT); one that looks like a file and names none is refused in one line; a text stays a text")
    func consentFiles() async throws {
        let server = try TestServer()
        let database = ["--database", server.databasePath]
        try await runServerCommand(["study", "create", "s", "--title", "S"] + database)
        let file = server.directory.appendingPathComponent("consent.txt")
        try Data("You agree to take part.\n".utf8).write(to: file)
        try await runServerCommand(["study", "update", "s", "--consent", file.path] + database)
        #expect(try await server.store.study(id: "s")?.consent == LocalizedText(["en": "You agree to take part."]))

        try await runServerCommand(["study", "update", "s", "--title", #"{"en":"S","de":"S (de)"}"#] + database)
        let german = server.directory.appendingPathComponent("consent.de.txt")
        try Data("Sie stimmen zu.".utf8).write(to: german)
        try await runServerCommand(["study", "update", "s", "--consent", file.path, "--consent", german.path] + database)
        #expect(try await server.store.study(id: "s")?.consent == LocalizedText(["en": "You agree to take part.", "de": "Sie stimmen zu."]))

        for missing in [server.directory.appendingPathComponent("gone.txt").path, "consent.v2.md", "./consent"] {
            let error = try #require(await #expect(throws: APIError.self) {
                try await runServerCommand(["study", "update", "s", "--consent", missing, "--consent", german.path] + database)
            })
            #expect(error.code == "consent_file" && error.message.contains("no such file") && !error.message.contains("\n"), "\(error.message)")
        }
        let (status, output) = try ServerBinaryTests.runCommand(["study", "update", "s", "--consent", "/nowhere/consent.txt"] + database)
        #expect(status != 0 && output.split(separator: "\n").count == 1 && output.contains("no such file"), "\(output)")
        #expect(try await server.store.study(id: "s")?.consent?.values["en"] == "You agree to take part.", "nothing changed")
        #expect(try await server.store.consentVersions(studyId: "s").allSatisfy { !$0.text.values.values.contains { $0.contains("/") } })

        try await runServerCommand(["study", "update", "s", "--title", "S", "--consent", "I agree to take part."] + database)
        #expect(try await server.store.study(id: "s")?.consent == LocalizedText(["en": "I agree to take part."]))
    }
}

/// The domain does not import the command line's types (issue 44): the rules are the services',
/// and the subcommands only parse and print.
@Suite("The domain names no command-line type", .timeLimit(.minutes(10)))
struct DomainLayeringTests {
    @Test("outside Commands/, no file of UNITIServer imports ArgumentParser or names a command's type")
    func noCommandTypesInTheDomain() throws {
        let root = repositoryRoot
            .appendingPathComponent("Sources/UNITIServer")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)).compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && !$0.path.contains("/Commands/") && $0.lastPathComponent != "UNITIServerCommand.swift" }
        #expect(files.count > 50)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for name in ["import ArgumentParser", "ExportCommand.", "StudyCommand.", "AdherenceCommand.", "QuestionnaireCommand.", "ValidationError("] {
                #expect(!text.contains(name), "\(file.lastPathComponent) names \(name)")
            }
        }
    }
}
