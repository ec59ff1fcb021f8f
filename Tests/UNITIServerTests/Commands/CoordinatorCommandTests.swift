import ArgumentParser
import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Coordinator commands", .timeLimit(.minutes(10)))
struct CoordinatorCommandTests {
    @Test("study create, modules and questionnaire import; a changed definition needs a new version")
    func studySetup() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        try await runServerCommand(["study", "create", "pilot", "--title", #"{"en":"Pilot","de":"Pilotstudie"}"#,
                                    "--access", "password", "--password", "pilot-pass", "--no-participants-may-leave"] + db)
        try await runServerCommand(["study", "modules", "pilot", "--enable", "tyt,son"] + db)
        let study = try #require(try await server.store.study(id: "pilot"))
        #expect(study.title.text(in: "de") == "Pilotstudie")
        #expect(study.access == .password)
        #expect(study.participantsMayLeave == false)
        #expect(study.modules == [.tyt, .son])
        await #expect(throws: Error.self) {
            try await runServerCommand(["study", "modules", "pilot", "--enable", "tyt,chess"] + db)
        }

        let file = server.directory.appendingPathComponent("q.json")
        try Data(dailyQuestionnaireJSON(id: "mini").utf8).write(to: file)
        try await runServerCommand(["questionnaire", "import", file.path, "--study", "pilot"] + db)
        try await runServerCommand(["questionnaire", "import", file.path, "--study", "pilot"] + db) // unchanged: fine
        try Data(dailyQuestionnaireJSON(id: "mini").replacingOccurrences(of: "How loud?", with: "How loud now?").utf8).write(to: file)
        await #expect(throws: Error.self) {
            try await runServerCommand(["questionnaire", "import", file.path, "--study", "pilot"] + db)
        }
        #expect(try await server.store.latestQuestionnaires(studyId: "pilot").map(\.version) == [1])
    }

    @Test("export writes one row per answer with a stable pseudonym, never the username")
    func exportContents() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        let first = sheet(loudness: 35, mood: 1)
        try await server.run { client in
            let token = try await client.signUp("wanda", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            _ = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [first]))
        }
        let out = server.directory.appendingPathComponent("export")
        try await runServerCommand(["export", "--study", "open", "--format", "csv", "--out", out.path, "--database", server.databasePath])
        try await runServerCommand(["export", "--study", "open", "--format", "json", "--out", out.path, "--database", server.databasePath])
        let csv = try String(contentsOf: out.appendingPathComponent("open-answers.csv"), encoding: .utf8)
        let lines = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 3)
        #expect(lines[0] == "participant,sheet,questionnaire,version,label,value,answered_at,started_at,ended_at,received_at,"
                + "module,microphone_dbfs,microphone_measured_at,latitude,longitude,altitude_m,accuracy_m,location_measured_at,consent_version,"
                + "prompt_id,prompted_at,late,initiated_by,language,site,arm")
        let pseudonym = try #require(try await server.store.user(login: "wanda")).pseudonym
        let sheetId = first.id.uuidString.lowercased()
        #expect(lines[1].hasPrefix("\(pseudonym),\(sheetId),daily,1,loudness,35,2027-01-15T09:01:00+01:00,2027-01-15T09:00:00+01:00,2027-01-15T09:05:00+01:00,"))
        #expect(lines[2].contains(",mood,1,"))
        #expect(!csv.contains("wanda"))

        let rows = try JSONDecoder().decode([ExportRow].self, from: Data(contentsOf: out.appendingPathComponent("open-answers.json")))
        #expect(rows.map(\.label) == ["loudness", "mood"])
        #expect(Set(rows.map(\.participant)) == [pseudonym])
    }

    @Test("a study may enable only known modules: an unknown id, or the shell's own, is refused naming the known ids")
    func unknownModuleRefused() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        for modules in ["tyt,chess", "uniti"] {
            let error = try #require(await #expect(throws: APIError.self) {
                try await runServerCommand(["study", "create", "pilot", "--title", "Pilot", "--modules", modules] + db)
            })
            let unknown = modules.split(separator: ",").last!
            #expect(error.message.contains("Unknown module '\(unknown)'"), "\(error.message)")
            #expect(error.message.contains("known: " + ModuleCatalog.ids.map(\.rawValue).joined(separator: ", ")), "\(error.message)")
        }
        #expect(try await server.store.study(id: "pilot") == nil)

        try await runServerCommand(["study", "create", "pilot", "--title", "Pilot", "--modules", "son, tn,son"] + db)
        await #expect(throws: APIError.self) {
            try await runServerCommand(["study", "modules", "pilot", "--enable", "tyt,tyt2"] + db)
        }
        #expect(try await server.store.study(id: "pilot")?.modules == [.son, .tn])
    }

    @Test("a module resource is put for a valid module id and served under it; an invalid module id is refused")
    func resourceModuleIds() async throws {
        let server = try TestServer()
        let db = ["--database", server.databasePath]
        let file = server.directory.appendingPathComponent("sounds.json")
        try Data(#"{"sounds": ["rain"]}"#.utf8).write(to: file)
        for module in ["my-mod", "s", "Son"] {
            let error = try #require(await #expect(throws: ValidationError.self) {
                try await runServerCommand(["resource", "put", module, "sounds", file.path] + db)
            })
            #expect(error.message.contains(ModuleID.ruleDescription))
        }
        try await runServerCommand(["resource", "put", "son", "sounds", file.path] + db)
        #expect(try await server.store.resources().map(\.moduleId) == ["son"])
        try await server.run { client in
            let served = try await client.get("/api/v1/resources/son/sounds")
            #expect(served.status == .ok)
            #expect(try served.decode(JSONValue.self) == .object(["sounds": .array([.string("rain")])]))
            #expect(try await client.get("/api/v1/resources/my-mod/sounds").status == .notFound)
        }
    }
}
