import Foundation
import UNITIProtocol

/// Reads and checks a definition before it is stored, with the shared questionnaire validator:
/// the one check of `questionnaire import` and the console's upload
/// (``StudyAdministration/importQuestionnaire(_:into:module:)``).
enum QuestionnaireImport {
    static func document(from data: Data, studyId: String) throws -> QuestionnaireDocument {
        switch QuestionnaireValidator.validate(data: data) {
        case .failure(let error):
            throw QuestionnaireProblems(unreadable: error.message)
        case .success(let (definition, problems)):
            guard problems.isEmpty else { throw QuestionnaireProblems(problems: problems.map { "\($0)" }) }
            return QuestionnaireDocument(id: definition.id, version: definition.version, studyId: studyId, definition: definition)
        }
    }
}

/// A definition that was not stored: every problem the validator found, one line each with its
/// path (`items[0].max: must be greater than min`), or why it could not be read at all. The
/// console lists them under the form, the command line prints them.
struct QuestionnaireProblems: Error, CustomStringConvertible, Equatable {
    var problems: [String]
    var unreadable: String?

    init(problems: [String]) {
        self.problems = problems
    }

    init(unreadable message: String) {
        problems = [message]
        unreadable = message
    }

    var description: String {
        if let unreadable { return "The definition cannot be read: \(unreadable)" }
        return "The definition has problems:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}
