import Foundation

extension QuestionnaireDefinition {
    /// Labels of the items shown given `answers`: an item with a condition is shown only when
    /// the earlier item it names is itself shown and its answer matches. Answers to hidden items
    /// are ignored, so a chain of conditions collapses when its first answer changes.
    public func visibleLabels(given answers: [String: AnswerValue]) -> Set<String> {
        var visible = Set<String>()
        for item in items {
            if let condition = item.showIf {
                guard visible.contains(condition.label),
                      condition.isMet(by: answers[condition.label])
                else { continue }
            }
            visible.insert(item.label)
        }
        return visible
    }

    /// The shown items in order.
    public func visibleItems(given answers: [String: AnswerValue]) -> [QuestionnaireItem] {
        let labels = visibleLabels(given: answers)
        return items.filter { labels.contains($0.label) }
    }
}

extension QuestionnaireDefinition {
    /// The definition with every question it can ask required: a question of an unsupported
    /// type never is (nobody could answer it), display items have nothing to require, and hidden
    /// questions stay unrequired as always. A clinical questionnaire saved whole (`RequiredAnswers`)
    /// and a study's screening (whose rules read its answers) ask this way.
    public func everyQuestionRequired() -> QuestionnaireDefinition {
        var definition = self
        definition.items = items.map { item in
            var item = item
            switch item.element {
            case .headline, .text: break
            case .unsupported: item.required = false
            default: item.required = true
            }
            return item
        }
        return definition
    }
}
