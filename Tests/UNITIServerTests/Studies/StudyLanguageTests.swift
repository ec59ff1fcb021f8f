import Foundation
import HTTPTypes
import Testing
import TrackYourTinnitusServer
import UNITIProtocol
@testable import UNITIServer
import UNITIText
import UNITITesting

/// Issue 49, "a study's text falls back to the study's first language, then English, and a
/// fallback is never silent": a Greek-first study read by a Spanish participant through the API
/// and the portal, and what the console and the rule say of its texts.
@Suite("A study's declared languages", .timeLimit(.minutes(10)))
struct StudyLanguageTests {
    /// Greek and English; `q2` and the slider's top label are in English only.
    static let questionnaire = """
        {"id": "kyma-daily", "version": 1, "title": {"en": "Today", "el": "Σήμερα"}, "kind": "oneTime",
         "items": [
           {"type": "yesNo", "label": "q1", "text": {"en": "Do you hear it now?", "el": "Το ακούτε τώρα;"}},
           {"type": "freeText", "label": "q2", "text": {"en": "Anything else?"}},
           {"type": "slider", "label": "q3", "text": {"en": "How loud?", "el": "Πόσο δυνατά;"}, "min": 0, "max": 10, "step": 1,
            "minLabel": {"en": "silent", "el": "αθόρυβο"}, "maxLabel": {"en": "very loud"}}
         ]}
        """

    @Test("a Spanish reader of a study in Greek and English reads Greek, and English where Greek is missing, in the API's definitions and on the portal's pages; the console names each text read in another language")
    func fallsBackToTheFirstLanguage() async throws {
        let server = try TestServer()
        try await server.run { client in
            let administration = StudyAdministration(store: server.store, actor: .operator, now: server.clock.now())
            try await administration.create("kyma", StudySettings(title: LocalizedText(["en": "Waves", "el": "Κύματα"]),
                                                                 description: .some(LocalizedText(["en": "About the sea"])),
                                                                 access: .public, modules: ["tyt"], languages: .some(["el", "en"])))
            let document = try QuestionnaireImport.document(from: Data(Self.questionnaire.utf8), studyId: "kyma")
            _ = try await server.store.addQuestionnaire(document, module: .tyt, now: server.clock.now())
            #expect(try await server.store.study(id: "kyma")?.languages == ["el", "en"])

            // The API gives the study's languages with the study and in its definitions.
            let token = try await client.signUp("sofia", on: server)
            let info = try await client.get("/api/v1/studies/kyma", token: token).decode(StudyInfo.self)
            #expect(info.languages == ["el", "en"] && info.fallbackLanguage == "el")
            #expect(info.title.text(in: "es", fallback: info.fallbackLanguage) == "Κύματα")
            #expect(info.description?.text(in: "es", fallback: info.fallbackLanguage) == "About the sea")
            let list = try await client.get("/api/v1/studies/kyma/questionnaires", token: token).decode(QuestionnaireList.self)
            let served = try #require(list.questionnaires.first?.definition)
            #expect(served.languages == ["el", "en"])
            let read = served.reading(in: "es")
            #expect(read.title.values["es"] == "Σήμερα" && read.items[1].text?.values["es"] == "Anything else?")
            // What is stored is unchanged: the languages are the study's, given as it is served.
            #expect(try await server.store.questionnaire(id: "kyma-daily", version: 1)?.definition.languages == nil)

            // The portal, in Spanish: the study's words in Greek, English where Greek is missing.
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "lucia")
            browser.extraHeaders[.acceptLanguage] = "es"
            try await server.store.setMembership(studyId: "kyma", userId: try await server.userId("lucia"), status: .member, now: server.clock.now())
            _ = try await server.portalLogin(browser, "lucia")
            let studies = try await browser.get("/studies").text
            #expect(studies.contains("Κύματα") && !studies.contains(">Waves<"), "\(studies)")
            let page = try await browser.get("/questionnaires/kyma-daily").text
            #expect(page.contains("<html lang=\"es\""))
            #expect(page.contains("Σήμερα") && page.contains("Το ακούτε τώρα;") && page.contains("Anything else?") && page.contains("αθόρυβο"))
            #expect(page.contains("very loud") && !page.contains("Do you hear it now?"), "\(page)")

            // What the team is told: Greek readers read two texts in English; English readers
            // read everything in English; Spanish is not a language the study declares.
            let study = try #require(try await server.store.study(id: "kyma"))
            let gaps = StudyLanguages.gaps(study, texts: try await StudyLanguages.texts(of: study, store: server.store))
            #expect(gaps == [StudyLanguages.Gap(language: "el", readIn: ["en": [
                "description", "questionnaire kyma-daily: items.q2.text", "questionnaire kyma-daily: items.q3.maxLabel",
            ]])])
            #expect(StudyLanguages.summary(gaps[0].readIn["en"]!, "en") == "the description; questionnaire kyma-daily (2)")

            // A study declaring none is checked for every language but English: a Greek-only
            // description is read in Greek by German readers (no English to fall back to).
            try await administration.update("kyma", StudySettings(description: .some(LocalizedText(["el": "Για τη θάλασσα"])),
                                                                 languages: .some(nil)))
            let undeclared = try #require(try await server.store.study(id: "kyma"))
            #expect(undeclared.languages == nil)
            let all = StudyLanguages.gaps(undeclared, texts: try await StudyLanguages.texts(of: undeclared, store: server.store))
            #expect(all.map(\.language) == ["de", "es", "el", "nl"])
            #expect(all.first?.readIn["el"] == ["description"] && all.first?.readIn["en"]?.count == 7)

            // The rule: a language the program does not speak, or one twice, is refused and nothing changes.
            for refused in [["el", "fr"], ["el", "el"], []] {
                await #expect(throws: APIError.self) {
                    try await administration.update("kyma", StudySettings(languages: .some(refused)))
                }
            }
            #expect(try await server.store.study(id: "kyma")?.languages == nil)
        }
    }

    @Test("the walk over a definition's texts names every text once, and reading fills only the missing ones: the reader's own, else the first language, else English")
    func readingAQuestionnaire() throws {
        var definition = try QuestionnaireDefinition.load(from: Data(Self.questionnaire.utf8))
        #expect(definition.texts.map(\.path) == ["title", "items.q1.text", "items.q2.text", "items.q3.text", "items.q3.minLabel", "items.q3.maxLabel"])
        // Without declared languages the fallback is English.
        #expect(definition.reading(in: "nl").items[0].text?.values["nl"] == "Do you hear it now?")
        definition.languages = ["el", "en"]
        let read = definition.reading(in: "nl")
        #expect(read.items[0].text?.values["nl"] == "Το ακούτε τώρα;")
        #expect(read.items[1].text?.values["nl"] == "Anything else?")
        #expect(read.items[0].text?.values["el"] == "Το ακούτε τώρα;" && read.items[0].text?.values["en"] == "Do you hear it now?")
        // A reader of a language the text has reads it unchanged.
        #expect(definition.reading(in: "en") == definition)
        #expect(QuestionnaireValidator.validate(definition).isEmpty)
        definition.languages = ["el", "el"]
        #expect(QuestionnaireValidator.validate(definition).map(\.code) == [.invalidLanguages])
    }

    @Test("the portal's check-in names the person's worst symptom in their language, as the shell does: the neutral phrase before a choice, the newest choice of a baseline after; the check-in's own ratings of item 8 do not count")
    func worstSymptomOnThePortal() async throws {
        let server = try TestServer()
        try await server.run { client in
            try await server.createStudy("tinn", modules: [.tyt])
            let folder = repositoryRoot.appendingPathComponent("Configurations/Resources/Questionnaires")
            for id in ["tyt-momentary", "tyt-worst-symptom"] {
                let document = try QuestionnaireImport.document(from: Data(contentsOf: folder.appendingPathComponent("\(id).json")), studyId: "tinn")
                _ = try await server.store.addQuestionnaire(document, module: .tyt, now: server.clock.now())
            }
            let browser = PortalBrowser(client)
            try await server.portalAccount(browser, "marta")
            try await server.store.setMembership(studyId: "tinn", userId: try await server.userId("marta"), status: .member, now: server.clock.now())
            _ = try await server.portalLogin(browser, "marta")
            browser.extraHeaders[.acceptLanguage] = "es"
            let neutral = Localizer(language: .spanish)("tyt.symptom.phrase.neutral")
            let before = try await browser.get("/questionnaires/tyt-momentary").text
            #expect(before.contains("¿Con qué intensidad nota ahora mismo \(neutral)?") && !before.contains("{worstSymptom}"), "\(before)")
            // Trouble concentrating (5) is chosen in the baseline; then a check-in rates item 8 at 90.
            let chosen = try await browser.answer("tyt-worst-symptom", ["q0": "5", "utcOffset": "60", "action": "finish"])
            #expect(chosen.status == .seeOther, "\(chosen.text)")
            let concentrating = Localizer(language: .spanish)("tyt.symptom.phrase.concentrating")
            let after = try await browser.get("/questionnaires/tyt-momentary").text
            #expect(after.contains("¿Con qué intensidad nota ahora mismo \(concentrating)?"), "\(after)")
            browser.extraHeaders[.acceptLanguage] = "el"
            let greek = try await browser.get("/questionnaires/tyt-momentary").text
            #expect(greek.contains(Localizer(language: .greek)("tyt.symptom.phrase.concentrating")))
            let part = TrackYourTinnitusServerPart()
            let userId = try await server.userId("marta")
            let stored = try #require(try await server.store.questionnaire(id: "tyt-momentary", version: 1)).definition
            let utc = TimeZone(secondsFromGMT: 0)!, now = server.clock.now()
            let rating = AnswerSheet(id: UUID(), questionnaireID: "tyt-momentary", questionnaireVersion: stored.version,
                                     answers: ["worst-symptom": Answer(value: .number(90), answeredAt: OffsetTimestamp(now.addingTimeInterval(90), in: utc))],
                                     startedAt: OffsetTimestamp(now.addingTimeInterval(60), in: utc),
                                     endedAt: OffsetTimestamp(now.addingTimeInterval(120), in: utc), clientVersion: "uniti 0.2.0", language: "es")
            _ = try await server.store.storeSheets(userId: userId, sheets: [ValidatedSheet(sheet: rating, studyId: "tinn")], receivedAt: now)
            let personal = try await part.personalized(stored, userId: userId, store: server.store)
            #expect(personal.items.last?.text?.values["nl"] == "Hoe sterk merkt u op dit moment \(Localizer(language: .dutch)("tyt.symptom.phrase.concentrating"))?")
        }
    }

    @Test("answers, the export and the codebook are the same whatever language a participant answered in, but for the language column")
    func storedTheSameInEveryLanguage() async throws {
        let server = try TestServer()
        try await server.run { client in
            let administration = StudyAdministration(store: server.store, actor: .operator, now: server.clock.now())
            try await administration.create("kyma", StudySettings(title: LocalizedText(["en": "Waves", "el": "Κύματα"]), access: .public,
                                                                 modules: ["tyt"], languages: .some(["el", "en"])))
            _ = try await server.store.addQuestionnaire(try QuestionnaireImport.document(from: Data(Self.questionnaire.utf8), studyId: "kyma"),
                                                        module: .tyt, now: server.clock.now())
            for (name, language) in [("eleni", "el"), ("pablo", "es"), ("anna", "en")] {
                let browser = PortalBrowser(client)
                try await server.portalAccount(browser, name)
                try await server.store.setMembership(studyId: "kyma", userId: try await server.userId(name), status: .member, now: server.clock.now())
                browser.extraHeaders[.acceptLanguage] = language
                _ = try await server.portalLogin(browser, name)
                let done = try await browser.answer("kyma-daily", ["q0": "0", "q1": "ok", "q2": "7", "utcOffset": "60", "action": "finish"])
                #expect(done.status == .seeOther, "\(language): \(done.text)")
            }
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-languages-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: out) }
            try await runServerCommand(["export", "--study", "kyma", "--format", "csv", "--out", out.path, "--database", server.databasePath])
            let lines = try String(contentsOf: out.appendingPathComponent("kyma-answers.csv"), encoding: .utf8)
                .components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0.components(separatedBy: ",") }
            let header = lines[0]
            let column = { (name: String) in try #require(header.firstIndex(of: name)) }
            let language = try column("language"), participant = try column("participant")
            // Who, which sheet and when differ; everything else is the same in each language.
            let personal = try Set(["participant", "sheet", "answered_at", "started_at", "ended_at", "received_at", "language"].map(column))
            var rows: [String: [[String]]] = [:]
            for line in lines.dropFirst() {
                rows[line[language], default: []].append(line.indices.filter { !personal.contains($0) }.map { line[$0] })
            }
            #expect(Set(rows.keys) == ["el", "es", "en"], "\(lines)")
            #expect(rows["el"] == rows["en"] && rows["es"] == rows["en"] && rows["en"]?.count == 3, "\(rows)")
            #expect(Set(lines.dropFirst().map { $0[participant] }).count == 3)
            #expect(rows["en"]?.map { $0[2] + "=" + $0[3] }.sorted() == ["q1=0", "q2=ok", "q3=7"], "\(rows)")
            // The codebook is written from the definitions in English, the same for every participant.
            let codebook = try String(contentsOf: out.appendingPathComponent("kyma-codebook.csv"), encoding: .utf8)
            #expect(codebook.contains("kyma-daily,1,q1,yesNo,Do you hear it now?,0 = yes; 1 = no") && !codebook.contains("Το ακούτε"), "\(codebook)")
        }
    }

    @Test("both stores keep a study's languages and give them with a member's questionnaires, in the one statement the devices' list reads", arguments: StoreKind.allCases)
    func storesKeepTheLanguages(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store, now = TestTime.now
        try await store.createStudy(StudyRecord(id: "kyma", title: LocalizedText(["en": "Waves", "el": "Κύματα"]), modules: [.tyt]), now: now)
        try await StudyAdministration(store: store, actor: .operator, now: now).update("kyma", StudySettings(languages: .some(["el", "en"])))
        _ = try await store.addQuestionnaire(try QuestionnaireImport.document(from: Data(Self.questionnaire.utf8), studyId: "kyma"), module: .tyt, now: now)
        let user = try await store.createUser(username: "eleni", email: "eleni@example.org", passwordHash: "x", language: "el", pseudonym: "P-1", now: now)
        try await store.setMembership(studyId: "kyma", userId: user, status: .member, now: now)
        #expect(try await store.study(id: "kyma")?.languages == ["el", "en"])
        let members = try await store.memberQuestionnaires(userId: user)
        #expect(members.map(\.studyLanguages) == [["el", "en"]])
        let served = StudyLanguages.served(try #require(members.first).definition, languages: members.first?.studyLanguages)
        guard case .object(let fields) = served else { Issue.record("not an object: \(served)"); return }
        #expect(fields["languages"] == JSONValue.array([.string("el"), .string("en")]))
        await opened.close()
    }
}
