import Foundation
import UNITICore
import UNITIProtocol

/// The scores of completed questionnaires over time (TinnitusNavigator thesis 2.3: the same
/// questionnaire answered again shows how the distress changes), computed by the core's scorer
/// from each sheet and the definition version it answered, so a grade is never re-read through
/// a newer definition.
struct ScoreHistory {
    /// One score of one completed questionnaire.
    struct Row: Encodable, Equatable {
        let completed: String
        let questionnaire: String
        let title: String
        let date: String
        let score: String
        let scoreTitle: String
        let value: Double?
        let grade: String?
        let gradeTitle: String?
        /// When the questionnaire was completed (`date` is its local day).
        let at: Date

        enum CodingKeys: String, CodingKey {
            case completed, questionnaire, title, date, score, scoreTitle, value, grade, gradeTitle
        }
    }

    /// Oldest first.
    let rows: [Row]

    init(_ questionnaires: ClinicalQuestionnaires, questionnaireID: String?) throws {
        let text = QuestionnaireText(localizer: questionnaires.context.localizer)
        let timeZone = questionnaires.context.clock.timeZone
        var rows: [Row] = []
        for completed in try questionnaires.completions(of: questionnaireID).reversed() {
            guard let definition = try questionnaires.definition(of: completed),
                  let rules = definition.scoring?.scores, !rules.isEmpty else { continue }
            let results = QuestionnaireScorer.scores(for: definition, answers: completed.sheet.values)
            for (rule, result) in zip(rules, results) {
                let band = rule.bands.first { $0.grade == result.grade }
                rows.append(Row(completed: completed.id, questionnaire: completed.questionnaireID, title: text.text(definition.title),
                                date: "\(LocalDate(completed.completedAt, in: timeZone))", score: rule.id,
                                scoreTitle: rule.title.map(text.text) ?? rule.id, value: result.value, grade: result.grade,
                                gradeTitle: band.map { $0.title.map(text.text) ?? $0.grade }, at: completed.completedAt))
            }
        }
        self.rows = rows
    }

    /// The score a chart follows for a questionnaire: `total` when it has one, else its first.
    func chartedScore(of questionnaireID: String) -> String? {
        let scores = rows.filter { $0.questionnaire == questionnaireID }.map(\.score)
        return scores.contains("total") ? "total" : scores.first
    }

    /// The questionnaires with at least two values of their charted score, in order of first
    /// completion.
    var chartable: [String] {
        var seen: [String] = []
        for row in rows where !seen.contains(row.questionnaire) {
            seen.append(row.questionnaire)
        }
        return seen.filter { id in
            rows.filter { $0.questionnaire == id && $0.score == chartedScore(of: id) && $0.value != nil }.count >= 2
        }
    }

    /// A line chart of one questionnaire's charted score over time.
    func chart(of questionnaireID: String, width: Int, timeZone: TimeZone) throws -> [String] {
        guard let score = chartedScore(of: questionnaireID) else { return [] }
        let picked = rows.filter { $0.questionnaire == questionnaireID && $0.score == score }
        let values = picked.compactMap { row in row.value.map { (row.at, $0) } }
        guard values.count >= 2, let first = picked.first else { return [] }
        let series = [ChartSeries(name: first.scoreTitle, dated: values)]
        let x = try ChartAxis.fitting(series, vertical: false, format: .date(timeZone))
        let y = try ChartAxis.fitting(series, vertical: true, includeZero: true)
        let title = L("tn.scores.chartTitle", ["title": first.title, "score": first.scoreTitle])
        return try TerminalChart(width: width, height: 6).lines(series, x: x, y: y, title: title)
    }
}
