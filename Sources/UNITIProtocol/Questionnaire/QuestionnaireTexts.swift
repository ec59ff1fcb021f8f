/// Every text of a questionnaire in one walk: what a coordinator is told is missing in a language
/// (``texts``), and the copy a reader of one language answers (``reading(in:)``), in which a text
/// missing in that language reads as the definition's first language, then English (issue 49).
extension QuestionnaireDefinition {
    /// Each text with where it is: `title`, `items.loudness.text`, `items.mood.options.2`,
    /// `scores.total.bands.mild`, `afterSaving.help.1`.
    public var texts: [(path: String, text: LocalizedText)] {
        var found: [(String, LocalizedText)] = []
        _ = mappingTexts { path, text in
            found.append((path, text))
            return text
        }
        return found
    }

    /// This definition as a reader of `language` reads it: every text missing in `language` is
    /// given the text the chain of ``LocalizedText/text(in:fallback:)`` finds, with
    /// ``fallbackLanguage`` before English. Shown, never stored: the sheet names the id, the
    /// version and the reader's language.
    public func reading(in language: String) -> QuestionnaireDefinition {
        let fallback = fallbackLanguage
        return mappingTexts { _, text in
            guard text.values[language] == nil, !text.values.isEmpty else { return text }
            var read = text
            read.values[language] = text.text(in: language, fallback: fallback)
            return read
        }
    }

    /// A copy with every text replaced by `transform(path, text)`.
    func mappingTexts(_ transform: (String, LocalizedText) -> LocalizedText) -> QuestionnaireDefinition {
        func optional(_ path: String, _ text: LocalizedText?) -> LocalizedText? { text.map { transform(path, $0) } }
        var copy = self
        copy.title = transform("title", title)
        copy.intro = optional("intro", intro)
        copy.outro = optional("outro", outro)
        copy.items = items.map { item in
            var item = item
            let path = "items.\(item.label)"
            item.text = optional(path + ".text", item.text)
            switch item.element {
            case .singleChoice(let options):
                item.element = .singleChoice(options: Self.map(options, path, transform))
            case .multipleChoice(let options, let least, let most):
                item.element = .multipleChoice(options: Self.map(options, path, transform), minSelected: least, maxSelected: most)
            case .slider(var range):
                range.minLabel = optional(path + ".minLabel", range.minLabel)
                range.maxLabel = optional(path + ".maxLabel", range.maxLabel)
                item.element = .slider(range)
            case .scale(let min, let max, let minLabel, let maxLabel):
                item.element = .scale(min: min, max: max, minLabel: optional(path + ".minLabel", minLabel),
                                      maxLabel: optional(path + ".maxLabel", maxLabel))
            default:
                break
            }
            return item
        }
        if var scoring {
            scoring.scores = scoring.scores.map { score in
                var score = score
                let path = "scores.\(score.id)"
                score.title = optional(path + ".title", score.title)
                score.bands = score.bands.map { band in
                    var band = band
                    band.title = optional("\(path).bands.\(band.grade)", band.title)
                    return band
                }
                return score
            }
            copy.scoring = scoring
        }
        if var afterSaving {
            afterSaving.message = optional("afterSaving.message", afterSaving.message)
            afterSaving.help = afterSaving.help.enumerated().map { index, help in
                var help = help
                help.text = transform("afterSaving.help.\(index + 1)", help.text)
                return help
            }
            copy.afterSaving = afterSaving
        }
        return copy
    }

    private static func map(_ options: [ChoiceOption], _ path: String,
                            _ transform: (String, LocalizedText) -> LocalizedText) -> [ChoiceOption] {
        options.map { option in
            var option = option
            option.text = transform("\(path).options.\(option.value)", option.text)
            return option
        }
    }
}
