import Foundation
import UNITIProtocol

/// What the authoring commands (`questionnaire validate`, `questionnaire preview`) print, kept
/// here so it is tested without a shell.
public enum QuestionnaireAuthoring {
    /// The outcome of checking one file.
    public struct ValidationReport: Codable, Sendable {
        public var file: String
        public var valid: Bool
        public var id: String?
        public var version: Int?
        public var itemCount: Int?
        /// Every problem, `path: rule` (one entry for JSON that cannot be read).
        public var problems: [String]
        /// Items of element types this version does not know (allowed, but worth knowing).
        public var unsupported: [String]
    }

    public static func validate(file path: String) throws -> ValidationReport {
        let data = try QuestionnaireLoader.readFile(path)
        switch QuestionnaireValidator.validate(data: data) {
        case .failure(let error):
            return ValidationReport(file: path, valid: false, problems: [error.message], unsupported: [])
        case .success(let (definition, problems)):
            let unsupported = definition.items.enumerated().compactMap { index, item -> String? in
                if case .unsupported(let type) = item.element { return "items[\(index)]=\(type)" }
                return nil
            }
            return ValidationReport(file: path, valid: problems.isEmpty, id: definition.id, version: definition.version,
                                    itemCount: definition.items.count, problems: problems.map(\.description),
                                    unsupported: unsupported)
        }
    }

    /// The report as lines for people.
    public static func lines(for report: ValidationReport, localizer: Localizer) -> [String] {
        guard report.valid else { return report.problems }
        var lines = [localizer("questionnaire.validate.valid", count: report.itemCount ?? 0, [
            "id": report.id ?? "", "version": String(report.version ?? 0),
        ])]
        for entry in report.unsupported {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            lines.append(localizer("questionnaire.validate.unsupported", ["path": parts[0], "type": parts.last ?? ""]))
        }
        return lines
    }

    /// Answers and scores of a preview, for people.
    public static func summary(of result: QuestionnaireResult, definition: QuestionnaireDefinition,
                               localizer: Localizer) -> [String] {
        let text = QuestionnaireText(localizer: localizer)
        var lines = [localizer("questionnaire.preview.answers")]
        for item in definition.items where item.element.isQuestion {
            guard definition.visibleLabels(given: result.sheet.values).contains(item.label) else { continue }
            let value = result.sheet.answers[item.label].map { text.describe($0.value, for: item) }
                ?? localizer("questionnaire.preview.noAnswer")
            lines.append("  \(item.label): \(value)")
        }
        if !result.scores.isEmpty {
            lines.append(localizer("questionnaire.preview.scores"))
            for score in result.scores {
                let rule = definition.scoring?.scores.first { $0.id == score.id }
                let name = rule?.title.map(text.text) ?? score.id
                if let value = score.value {
                    var line = "  \(name): \(AnswerValue.number(value))"
                    if let grade = score.grade {
                        let band = rule?.bands.first { $0.grade == grade }
                        line += " (\(band?.title.map(text.text) ?? grade))"
                    }
                    lines.append(line)
                } else {
                    lines.append("  \(name): " + localizer("questionnaire.preview.incomplete", ["labels": score.missing.joined(separator: ", ")]))
                }
            }
        }
        return lines
    }
}
