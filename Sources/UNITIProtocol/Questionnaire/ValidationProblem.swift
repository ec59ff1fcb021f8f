import Foundation

/// One thing wrong with a definition or an answer sheet, naming where (a JSON path such as
/// `items[3].max` or `answers.loudness`) and which rule it breaks.
///
/// `code` is a stable identifier of the rule (for programs, tests and translation); `message`
/// is the English sentence for authors and API clients. Printed as `path: message`.
public struct ValidationProblem: Codable, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var code: Code
    public var message: String
    /// The item label concerned, when there is one (the server names it in a 422 answer).
    public var label: String?

    public init(path: String, code: Code, message: String, label: String? = nil) {
        self.path = path
        self.code = code
        self.message = message
        self.label = label
    }

    public var description: String { "\(path): \(message)" }

    /// The rules, as stable identifiers.
    public enum Code: String, Codable, Hashable, Sendable, CaseIterable {
        // Definitions
        case invalidIdentifier, invalidVersion, missingEnglish, noItems, duplicateLabel, invalidLabel
        case conditionUnknownLabel, conditionForwardReference, conditionOnDisplayItem, conditionNoValues
        case noOptions, duplicateChoiceValue, invalidSelectionBounds
        case rangeNotIncreasing, invalidStep, stepDoesNotDivideRange, invalidPoints, invalidMaxLength
        case missingSchedule, invalidDate, invalidScheduleNumber, scheduleIncomplete, dateRangeNotIncreasing
        case invalidWindow, promptsOverlap, promptsDoNotFit
        case unknownSensor, duplicateSensor, invalidLanguages
        case duplicateScoreID, scoreUnknownItem, scoreItemNotNumeric, reversedNotInItems
        case bandNotIncreasing, bandOverlap, bandGap, bandsDoNotCover
        // Answer sheets
        case wrongQuestionnaire, unknownLabel, answerToDisplayItem, answerToHiddenItem, wrongType
        case outOfRange, notOnStep, unknownChoice, duplicateChoice, selectionCount, tooLong
        case requiredMissing, requiredUnsupported
    }
}

/// Thrown when a definition or sheet is not readable JSON of the expected shape: one message
/// with the position (line and column for syntax, a JSON path for a wrong field).
public struct QuestionnaireFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
