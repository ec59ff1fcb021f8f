import Foundation

/// Checks a decoded definition against every rule of the format and returns all problems at
/// once (an author fixes them in one pass), each naming the JSON path and the rule broken.
///
/// An item of an unknown element type is not a problem here: it loads and is shown as
/// unsupported; `AnswerSheetValidator` refuses a sheet only if such an item is required.
public enum QuestionnaireValidator {
    public static func validate(_ definition: QuestionnaireDefinition) -> [ValidationProblem] {
        var problems = Problems()
        checkHeader(definition, &problems)
        checkSchedule(definition, &problems)
        checkItems(definition, &problems)
        checkScoring(definition, &problems)
        checkAfterSaving(definition, &problems)
        return problems.list
    }

    /// Decodes and validates in one step: the format error (if the JSON cannot be read) or the
    /// list of problems (empty when valid).
    public static func validate(data: Data) -> Result<(QuestionnaireDefinition, [ValidationProblem]), QuestionnaireFormatError> {
        do {
            let definition = try QuestionnaireDefinition.load(from: data)
            return .success((definition, validate(definition)))
        } catch let error as QuestionnaireFormatError {
            return .failure(error)
        } catch {
            return .failure(QuestionnaireFormatError("\(error)"))
        }
    }

    struct Problems {
        var list: [ValidationProblem] = []
        mutating func add(_ path: String, _ code: ValidationProblem.Code, _ message: String, label: String? = nil) {
            list.append(ValidationProblem(path: path, code: code, message: message, label: label))
        }
        mutating func requireEnglish(_ text: LocalizedText?, at path: String, label: String? = nil) {
            guard let text else { return }
            if !(text.values["en"] ?? "").contains(where: { !$0.isWhitespace }) {
                add(path, .missingEnglish, "must have English text (\"en\")", label: label)
            }
        }
    }

    /// ASCII letters, digits, `-`, `_`, `.`, starting with a letter or digit, at most 100 long.
    static func isIdentifier(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, bytes.count <= 100 else { return false }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
        }
        return isAlphanumeric(first) && bytes.allSatisfy { isAlphanumeric($0) || $0 == 45 || $0 == 95 || $0 == 46 }
    }

    private static func checkHeader(_ d: QuestionnaireDefinition, _ p: inout Problems) {
        if !isIdentifier(d.id) || d.id != d.id.lowercased() {
            p.add("id", .invalidIdentifier, "must be lower-case letters, digits, '-', '_' or '.', starting with a letter or digit")
        }
        if d.version < 1 { p.add("version", .invalidVersion, "must be an integer of at least 1") }
        if let minutes = d.completionWindowMinutes, !PromptTiming.completionWindowRange.contains(minutes) {
            p.add("completionWindowMinutes", .invalidScheduleNumber, "must be 1 to 1440 minutes")
        }
        if let minutes = d.lateAnswerMinutes, !PromptTiming.lateAnswerRange.contains(minutes) {
            p.add("lateAnswerMinutes", .invalidScheduleNumber, "must be 0 to 1440 minutes")
        }
        if d.title.values.isEmpty { p.add("title", .missingEnglish, "must have English text (\"en\")") }
        p.requireEnglish(d.title, at: "title")
        p.requireEnglish(d.intro, at: "intro")
        p.requireEnglish(d.outro, at: "outro")
        if let languages = d.languages {
            let codes = languages.allSatisfy { $0.count == 2 && $0.allSatisfy { ("a"..."z").contains($0) } }
            if languages.isEmpty || !codes || Set(languages).count != languages.count {
                p.add("languages", .invalidLanguages, "must list language codes such as \"de\", each once, the first the one to fall back to")
            }
        }
        var seenSensors = Set<String>()
        for (index, sensor) in d.sensors.enumerated() {
            if !QuestionnaireSensor.known.contains(sensor) {
                p.add("sensors[\(index)]", .unknownSensor,
                      "unknown sensor \"\(sensor.rawValue)\"; known: microphoneLevel, location")
            }
            if !seenSensors.insert(sensor.rawValue).inserted {
                p.add("sensors[\(index)]", .duplicateSensor, "sensor \"\(sensor.rawValue)\" is listed twice")
            }
        }
    }

    private static func checkSchedule(_ d: QuestionnaireDefinition, _ p: inout Problems) {
        guard let s = d.schedule else {
            if d.kind == .repeating {
                p.add("schedule", .missingSchedule, "a repeating questionnaire needs a schedule")
            }
            return
        }
        func checkDate(_ value: String?, _ key: String) {
            if let value, !CalendarDay.isValid(value) {
                p.add("schedule.\(key)", .invalidDate, "must be a date written YYYY-MM-DD")
            }
        }
        checkDate(s.at, "at")
        checkDate(s.start, "start")
        checkDate(s.end, "end")
        switch s.timing {
        case .fixed:
            if s.at == nil { p.add("schedule.at", .scheduleIncomplete, "a fixed schedule needs the date \"at\"") }
        case .between:
            if let start = s.start, let end = s.end, CalendarDay.isValid(start), CalendarDay.isValid(end), end < start {
                p.add("schedule.end", .dateRangeNotIncreasing, "must not be before start")
            }
        }
        if let every = s.every, every < 1 { p.add("schedule.every", .invalidScheduleNumber, "must be at least 1") }
        if let amount = s.amount, amount < 1 { p.add("schedule.amount", .invalidScheduleNumber, "must be at least 1") }
        if let day = s.startOnDay, day < 0 { p.add("schedule.startOnDay", .invalidScheduleNumber, "must be 0 or more") }
        if let day = s.endOnDay, day < max(0, s.startOnDay ?? 0) {
            p.add("schedule.endOnDay", .dateRangeNotIncreasing, "must be 0 or more and not before startOnDay")
        }
        checkWindows(d, s, &p)
    }

    /// The daily windows, the gap and the shift: every window readable, no weekday twice, the gap
    /// at least the completion window (prompts never overlap) and every day's window holding the
    /// day's prompts with it.
    private static func checkWindows(_ d: QuestionnaireDefinition, _ s: QuestionnaireSchedule, _ p: inout Problems) {
        var named = Set<Int>()
        for (index, window) in (s.windows ?? []).enumerated() {
            let at = "schedule.windows[\(index)]"
            if window.weekdays == nil || window.days.isEmpty {
                p.add("\(at).days", .invalidWindow, "must name weekdays: mon, tue, wed, thu, fri, sat, sun")
            }
            for day in window.weekdays ?? [] where !named.insert(day).inserted {
                p.add("\(at).days", .invalidWindow, "\(PromptWindow.weekdayNames[day - 1]) already has a window")
            }
            if window.minutes == nil { p.add(at, .invalidWindow, "must run from HH:MM to a later HH:MM on the same day") }
        }
        if let windows = s.windows, windows.isEmpty { p.add("schedule.windows", .invalidWindow, "must name at least one day; leave it out for 08:00-22:00 every day") }
        let completion = d.completionWindowMinutes ?? PromptTiming.defaultCompletionWindowMinutes
        if let gap = s.minimumGapMinutes {
            if !PromptTiming.completionWindowRange.contains(gap) {
                p.add("schedule.minimumGapMinutes", .invalidScheduleNumber, "must be 1 to 1440 minutes")
            } else if gap < completion {
                p.add("schedule.minimumGapMinutes", .promptsOverlap,
                      "must be at least the completion window (\(completion) minutes), or prompts overlap")
            }
        }
        if let shift = s.windowShiftMinutes, !(0...720).contains(shift) {
            p.add("schedule.windowShiftMinutes", .invalidScheduleNumber, "must be 0 to 720 minutes")
        }
        // A definition from before windows and gaps is planned with the gap that fits (``QuestionnaireSchedule/gap(completionWindowMinutes:)``).
        let amount = s.amount ?? 1, gap = s.minimumGapMinutes ?? completion
        guard s.windows != nil || s.minimumGapMinutes != nil, s.frequency == .daily, amount > 1, gap >= 1 else { return }
        for (index, window) in s.week.enumerated() {
            guard let window, PromptDraw.capacity(of: window, gap: gap) < amount else { continue }
            p.add(s.windows == nil ? "schedule.amount" : "schedule.windows", .promptsDoNotFit,
                  "\(amount) prompts \(gap) minutes apart do not fit \(PromptWindow.weekdayNames[index])'s window "
                  + "\(PromptWindow.time(window.lowerBound))-\(PromptWindow.time(window.upperBound)); at most \(PromptDraw.capacity(of: window, gap: gap)) fit")
            return
        }
    }

    private static func checkItems(_ d: QuestionnaireDefinition, _ p: inout Problems) {
        if d.items.isEmpty { p.add("items", .noItems, "a questionnaire needs at least one item") }
        var firstIndex: [String: Int] = [:]
        for (index, item) in d.items.enumerated() where firstIndex[item.label] == nil {
            firstIndex[item.label] = index
        }
        var seen = Set<String>()
        for (index, item) in d.items.enumerated() {
            let at = "items[\(index)]"
            let label = item.label
            if !isIdentifier(label) {
                p.add("\(at).label", .invalidLabel, "must be letters, digits, '-', '_' or '.', starting with a letter or digit", label: label)
            } else if !seen.insert(label).inserted {
                p.add("\(at).label", .duplicateLabel,
                      "label \"\(label)\" is already used by items[\(firstIndex[label] ?? 0)]", label: label)
            }
            p.requireEnglish(item.text, at: "\(at).text", label: label)
            switch item.element {
            case .headline, .text:
                if item.text == nil { p.add("\(at).text", .missingEnglish, "display items need a text", label: label) }
            default:
                break
            }
            checkElement(item.element, at: at, label: label, &p)
            if let condition = item.showIf {
                checkCondition(condition, of: index, in: d, firstIndex: firstIndex, at: "\(at).showIf", label: label, &p)
            }
        }
    }

    private static func checkElement(_ element: QuestionnaireElement, at: String, label: String, _ p: inout Problems) {
        switch element {
        case .singleChoice(let options):
            checkOptions(options, at: at, label: label, &p)
        case .multipleChoice(let options, let minSelected, let maxSelected):
            checkOptions(options, at: at, label: label, &p)
            if let low = minSelected, low < 0 || low > options.count {
                p.add("\(at).minSelected", .invalidSelectionBounds, "must be between 0 and the number of options (\(options.count))", label: label)
            }
            if let high = maxSelected, high < 1 || high > options.count {
                p.add("\(at).maxSelected", .invalidSelectionBounds, "must be between 1 and the number of options (\(options.count))", label: label)
            }
            if let low = minSelected, let high = maxSelected, high < low {
                p.add("\(at).maxSelected", .invalidSelectionBounds, "must not be less than minSelected", label: label)
            }
        case .slider(let range):
            guard range.min.isFinite, range.max.isFinite, range.step.isFinite else {
                p.add("\(at)", .rangeNotIncreasing, "min, max and step must be finite numbers", label: label)
                return
            }
            if range.max <= range.min {
                p.add("\(at).max", .rangeNotIncreasing, "must be greater than min", label: label)
            }
            if range.step <= 0 {
                p.add("\(at).step", .invalidStep, "must be greater than 0", label: label)
            } else if range.max > range.min {
                let steps = (range.max - range.min) / range.step
                if abs(steps - steps.rounded()) > 1e-6 {
                    p.add("\(at).step", .stepDoesNotDivideRange,
                          "must divide max - min (\(AnswerValue.number(range.max - range.min))) into whole steps", label: label)
                } else if steps > 100_000 {
                    p.add("\(at).step", .invalidStep, "gives more than 100000 positions", label: label)
                }
            }
            p.requireEnglish(range.minLabel, at: "\(at).minLabel", label: label)
            p.requireEnglish(range.maxLabel, at: "\(at).maxLabel", label: label)
            if let unit = range.unit, unit.isEmpty || unit.count > 8 || unit.contains(where: \.isNewline) {
                p.add("\(at).unit", .invalidStep, "must be 1 to 8 characters on one line, e.g. \"%\"", label: label)
            }
        case .scale(let min, let max, let minLabel, let maxLabel):
            if max <= min { p.add("\(at).max", .rangeNotIncreasing, "must be greater than min", label: label) }
            else if max - min > 100 { p.add("\(at).max", .rangeNotIncreasing, "a scale has at most 101 points; use a slider", label: label) }
            p.requireEnglish(minLabel, at: "\(at).minLabel", label: label)
            p.requireEnglish(maxLabel, at: "\(at).maxLabel", label: label)
        case .samValence(let points), .samArousal(let points):
            if points != 5 && points != 9 { p.add("\(at).points", .invalidPoints, "must be 9 or 5", label: label) }
        case .freeText(_, let maxLength):
            if let maxLength, maxLength < 1 { p.add("\(at).maxLength", .invalidMaxLength, "must be at least 1", label: label) }
        case .headline, .text, .yesNo, .date, .unsupported:
            break
        }
    }

    private static func checkOptions(_ options: [ChoiceOption], at: String, label: String, _ p: inout Problems) {
        if options.isEmpty { p.add("\(at).options", .noOptions, "needs at least one option", label: label) }
        var seen: [Int: Int] = [:]
        for (index, option) in options.enumerated() {
            if let first = seen[option.value] {
                p.add("\(at).options[\(index)].value", .duplicateChoiceValue,
                      "value \(option.value) is already used by options[\(first)]", label: label)
            } else {
                seen[option.value] = index
            }
            p.requireEnglish(option.text, at: "\(at).options[\(index)].text", label: label)
        }
    }

    private static func checkCondition(_ condition: ItemCondition, of index: Int, in d: QuestionnaireDefinition,
                                       firstIndex: [String: Int], at: String, label: String, _ p: inout Problems) {
        guard let target = firstIndex[condition.label] else {
            p.add("\(at).label", .conditionUnknownLabel, "refers to no item labelled \"\(condition.label)\"", label: label)
            return
        }
        if target >= index {
            p.add("\(at).label", .conditionForwardReference,
                  "must refer to an earlier item; \"\(condition.label)\" is items[\(target)]", label: label)
            return
        }
        if !d.items[target].element.isQuestion {
            p.add("\(at).label", .conditionOnDisplayItem, "refers to \"\(condition.label)\", which takes no answer", label: label)
        }
        if condition.values.isEmpty {
            p.add("\(at).in", .conditionNoValues, "needs at least one value", label: label)
        }
    }

    private static func checkScoring(_ d: QuestionnaireDefinition, _ p: inout Problems) {
        guard let scoring = d.scoring else { return }
        var ids = Set<String>()
        for (scoreIndex, rule) in scoring.scores.enumerated() {
            let at = "scoring.scores[\(scoreIndex)]"
            if !isIdentifier(rule.id) {
                p.add("\(at).id", .invalidIdentifier, "must be letters, digits, '-', '_' or '.'")
            } else if !ids.insert(rule.id).inserted {
                p.add("\(at).id", .duplicateScoreID, "score \"\(rule.id)\" is defined twice")
            }
            p.requireEnglish(rule.title, at: "\(at).title")
            var lowest = 0.0, highest = 0.0, integral = true, boundsKnown = true
            for (itemIndex, label) in rule.items.enumerated() {
                guard let item = d.item(labeled: label) else {
                    p.add("\(at).items[\(itemIndex)]", .scoreUnknownItem, "refers to no item labelled \"\(label)\"", label: label)
                    boundsKnown = false
                    continue
                }
                guard let bounds = item.element.numericBounds else {
                    p.add("\(at).items[\(itemIndex)]", .scoreItemNotNumeric,
                          "item \"\(label)\" (\(item.element.typeName)) has no numeric value to add", label: label)
                    boundsKnown = false
                    continue
                }
                lowest += bounds.min
                highest += bounds.max
                integral = integral && item.element.hasIntegerValues
            }
            for (reversedIndex, label) in rule.reversed.enumerated() where !rule.items.contains(label) {
                p.add("\(at).reversed[\(reversedIndex)]", .reversedNotInItems, "\"\(label)\" is not among the score's items", label: label)
            }
            checkBands(rule.bands, at: at, range: boundsKnown ? (lowest, highest) : nil, integral: integral, &p)
        }
    }

    /// The texts after saving need English, and their scores must exist.
    private static func checkAfterSaving(_ d: QuestionnaireDefinition, _ p: inout Problems) {
        guard let after = d.afterSaving else { return }
        p.requireEnglish(after.message, at: "afterSaving.message")
        let scores = Set(d.scoring?.scores.map(\.id) ?? [])
        for (index, help) in after.help.enumerated() {
            if !scores.contains(help.score) {
                p.add("afterSaving.help[\(index)].score", .scoreUnknownItem, "refers to no score \"\(help.score)\" of this questionnaire")
            }
            p.requireEnglish(help.text, at: "afterSaving.help[\(index)].text")
        }
    }

    private static func checkBands(_ bands: [GradeBand], at: String, range: (Double, Double)?, integral: Bool,
                                   _ p: inout Problems) {
        guard !bands.isEmpty else { return }
        var ordered = true
        for (index, band) in bands.enumerated() {
            let path = "\(at).bands[\(index)]"
            if band.max < band.min {
                p.add("\(path).max", .bandNotIncreasing, "must not be less than min")
                ordered = false
            }
            if !isIdentifier(band.grade) { p.add("\(path).grade", .invalidIdentifier, "must be letters, digits, '-', '_' or '.'") }
            p.requireEnglish(band.title, at: "\(path).title")
            guard index > 0 else { continue }
            let previous = bands[index - 1]
            // Continuous scores may share a boundary (it belongs to the lower band).
            if integral ? band.min <= previous.max : band.min < previous.max {
                p.add("\(path).min", .bandOverlap,
                      "overlaps bands[\(index - 1)] (\(AnswerValue.number(previous.min))–\(AnswerValue.number(previous.max))); bands must be in increasing order without overlap")
                ordered = false
            } else if integral ? band.min > previous.max + 1 : band.min > previous.max {
                p.add("\(path).min", .bandGap,
                      "leaves a gap after bands[\(index - 1)], which ends at \(AnswerValue.number(previous.max)); start at \(AnswerValue.number(integral ? previous.max + 1 : previous.max))")
            }
        }
        guard ordered, let (lowest, highest) = range, let first = bands.first, let last = bands.last else { return }
        if first.min > lowest || last.max < highest {
            p.add("\(at).bands", .bandsDoNotCover,
                  "must cover every possible total \(AnswerValue.number(lowest))–\(AnswerValue.number(highest)); they cover \(AnswerValue.number(first.min))–\(AnswerValue.number(last.max))")
        }
    }
}
