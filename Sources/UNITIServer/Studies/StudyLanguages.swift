import Foundation
import UNITIProtocol
import UNITIText

/// A study's declared languages (issue 49): the rule a declaration keeps, and what a participant
/// of each language reads in another one because a study text lacks theirs.
///
/// A study text a participant reads (title, description, consent, every text of its
/// questionnaires, the arms' notices, the visits' names, the screening's words) is read in the
/// participant's language, else in the study's first language, else in English
/// (``LocalizedText/text(in:fallback:)``). Nothing of that is silent for the team: the console's
/// settings page and `uniti-server study languages ID` list, for each language, the texts read in
/// another one (``gaps(_:)``).
enum StudyLanguages {
    /// `codes` as a study declares them: each a language this program speaks, each once, at least
    /// one; throws `unknown_language` naming the first that is not.
    static func checked(_ codes: [String]) throws -> [String] {
        let known = Language.allCases.map(\.rawValue)
        guard !codes.isEmpty else {
            throw APIError.invalid("unknown_language", "Declare at least one language (\(known.joined(separator: ", "))), or none at all.")
        }
        var seen = Set<String>()
        for code in codes {
            guard known.contains(code) else {
                throw APIError.invalid("unknown_language", "'\(code.prefix(16))' is not a language of this program; give some of \(known.joined(separator: ", ")).")
            }
            guard seen.insert(code).inserted else {
                throw APIError.invalid("unknown_language", "'\(code)' is declared twice; give each language once.")
            }
        }
        return codes
    }

    /// One text of a study, named for the team: `title`, `consent`, `questionnaire thi: items.q1.text`.
    struct Text: Sendable {
        var name: String
        var text: LocalizedText
        /// The language it falls back to before English: the study's first, or a questionnaire's own.
        var fallback: String?
    }

    /// What readers of `language` read in another language: each such text with the language
    /// it is read in.
    struct Gap: Sendable, Equatable {
        var language: String
        var readIn: [String: [String]]

        var count: Int { readIn.values.reduce(0) { $0 + $1.count } }
    }

    /// The languages a study's texts are checked for: its declared ones, or every language of the
    /// program when it declares none (English among them only when declared: it is the last
    /// fallback, so a study that declares none is written in English first).
    static func checkedLanguages(_ study: StudyRecord) -> [String] {
        study.languages ?? Language.allCases.map(\.rawValue).filter { $0 != "en" }
    }

    /// For each checked language with any, the texts its readers read in another language.
    static func gaps(_ study: StudyRecord, texts: [Text]) -> [Gap] {
        checkedLanguages(study).compactMap { language in
            var readIn: [String: [String]] = [:]
            for text in texts where text.text.values[language] == nil {
                guard let other = text.text.language(for: language, fallback: text.fallback) else { continue }
                readIn[other, default: []].append(text.name)
            }
            return readIn.isEmpty ? nil : Gap(language: language, readIn: readIn)
        }
    }

    /// Every text of `study` a participant may read, from the store: the study's own, its
    /// questionnaires' newest versions (as they are served, ``served(_:study:)``), the trial
    /// design's arm notices and visit names, and the screening's words.
    static func texts(of study: StudyRecord, store: ServerStore) async throws -> [Text] {
        let fallback = study.fallbackLanguage
        var texts = [Text(name: "title", text: study.title, fallback: fallback)]
        func add(_ name: String, _ text: LocalizedText?) { if let text { texts.append(Text(name: name, text: text, fallback: fallback)) } }
        add("description", study.description)
        add("consent", study.consent)
        for document in try await store.latestQuestionnaires(studyId: study.id) {
            let definition = served(document.definition, study: study)
            texts += definition.texts.map { Text(name: name(questionnaire: document.id, path: $0.path), text: $0.text, fallback: definition.fallbackLanguage) }
        }
        if let design = try await store.trial(studyId: study.id)?.design {
            for arm in design.arms { add("arm \(arm.id): notice", arm.notice) }
            for visit in design.visits ?? [] { add("visit \(visit.id): title", visit.title) }
        }
        if let screening = try await store.screening(studyId: study.id) {
            add("screening: ineligibleMessage", screening.ineligibleMessage)
            add("screening: keepAnswersQuestion", screening.keepAnswersQuestion)
        }
        return texts
    }

    /// A questionnaire of `study` as participants are given it: with the study's languages when
    /// it declares none of its own, so its texts fall back to the study's first language.
    static func served(_ definition: QuestionnaireDefinition, study: StudyRecord) -> QuestionnaireDefinition {
        guard definition.languages == nil, let languages = study.languages else { return definition }
        var served = definition
        served.languages = languages
        return served
    }

    /// The name of a questionnaire's text: `questionnaire thi: items.q1.text`.
    static func name(questionnaire id: String, path: String) -> String { "questionnaire \(id): \(path)" }

    /// The questionnaire a text's name (``name(questionnaire:path:)``) belongs to; nil for the others.
    static func questionnaire(of name: String) -> String? {
        guard name.hasPrefix("questionnaire "), let colon = name.firstIndex(of: ":") else { return nil }
        return String(name[name.index(name.startIndex, offsetBy: 14)..<colon])
    }

    /// Names of texts as the console lists them, in `language`: the study's own texts by their
    /// field, a questionnaire's texts as one entry with their count, the others as named.
    static func summary(_ names: [String], _ language: String) -> String {
        enum Entry: Equatable { case questionnaire(String), text(String) }
        var entries: [Entry] = [], counts: [String: Int] = [:]
        for name in names {
            if let id = questionnaire(of: name) {
                if counts[id] == nil { entries.append(.questionnaire(id)) }
                counts[id, default: 0] += 1
            } else {
                entries.append(.text(["title", "description", "consent"].contains(name) ? PortalText.text("console.settings.text.\(name)", language) : name))
            }
        }
        return entries.map { entry in
            switch entry {
            case .questionnaire(let id):
                PortalText.text("console.settings.fallback.questionnaire", language, ["id": id, "count": "\(counts[id] ?? 0)"])
            case .text(let text):
                text
            }
        }.joined(separator: "; ")
    }

    /// ``served(_:study:)`` for a definition passed on as JSON, as the members' list carries it.
    static func served(_ definition: JSONValue, languages: [String]?) -> JSONValue {
        guard case .object(var fields) = definition, fields["languages"] == nil, let languages else { return definition }
        fields["languages"] = .array(languages.map { .string($0) })
        return .object(fields)
    }

    /// ``served(_:study:)`` for a stored version.
    static func served(_ document: QuestionnaireDocument, study: StudyRecord) -> QuestionnaireDocument {
        var served = document
        served.definition = Self.served(document.definition, study: study)
        return served
    }
}
