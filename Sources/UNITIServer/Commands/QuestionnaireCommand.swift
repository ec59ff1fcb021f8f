import ArgumentParser
import Foundation
import UNITIProtocol

/// `uniti-server questionnaire import FILE --study ID`: stores a questionnaire version for a study.
struct QuestionnaireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "questionnaire", abstract: "Import questionnaire definitions.", subcommands: [Import.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a questionnaire definition (JSON, core format). A changed definition needs a higher version; older versions stay.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Definition file (JSON).") var file: String
        @Option(help: "Study the questionnaire belongs to.") var study: String

        func run() async throws {
            let store = try database.openStore()
            guard try await store.study(id: study) != nil else { throw ValidationError("No study '\(study)'; create it first.") }
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw ValidationError("Cannot read '\(file)'.")
            }
            let document = try QuestionnaireImport.document(from: data, studyId: study)
            do {
                let added = try await store.addQuestionnaire(document, now: Date())
                print(added ? "Imported \(document.id) version \(document.version) into study \(study)."
                            : "\(document.id) version \(document.version) is already stored unchanged.")
            } catch let error as APIError {
                throw ValidationError(error.message)
            }
        }
    }
}

/// Reads and checks a definition file before it is stored, with the shared questionnaire validator.
enum QuestionnaireImport {
    static func document(from data: Data, studyId: String) throws -> QuestionnaireDocument {
        switch QuestionnaireValidator.validate(data: data) {
        case .failure(let error):
            throw ValidationError("The definition cannot be read: \(error.message)")
        case .success(let (definition, problems)):
            guard problems.isEmpty else {
                throw ValidationError("The definition has problems:\n" + problems.map { "  \($0)" }.joined(separator: "\n"))
            }
            return QuestionnaireDocument(id: definition.id, version: definition.version, studyId: studyId, definition: definition)
        }
    }
}
