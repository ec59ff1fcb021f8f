/// An error with a message a person can act on. Commands throw these; the shell prints the
/// message as one line and carries on. Nothing that was stored before the error is touched.
public struct UNITIError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Thrown when the person abandons a prompt (Ctrl-C) or input ends while a command still asks.
public struct PromptCancelled: Error, Sendable {
    public enum Reason: Sendable { case interrupted, endOfInput }
    public let reason: Reason
    /// Whether the answers given so far were kept (a questionnaire's draft), so the shell does
    /// not claim that nothing was saved.
    public let keptAnswers: Bool
    public init(_ reason: Reason, keptAnswers: Bool = false) {
        self.reason = reason
        self.keptAnswers = keptAnswers
    }
}
