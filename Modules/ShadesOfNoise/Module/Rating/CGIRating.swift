import Foundation
import UNITICore

/// The Clinical Global Impression of change asked after listening (FA10): seven answers from
/// "very much better" (1) to "very much worse" (7); lower is better. The person may decline, or
/// not answer at all, in which case the question closes by itself after 30 seconds.
public enum CGIRating {
    /// String-table keys of the seven answers, in scale order.
    public static let answerKeys = [
        "son.cgi.1", "son.cgi.2", "son.cgi.3", "son.cgi.4", "son.cgi.5", "son.cgi.6", "son.cgi.7",
    ]

    /// How long the question waits (thesis 6.2: 30 seconds).
    public static let timeout: TimeInterval = 30

    public static func label(_ rating: Int) -> String {
        (1...7).contains(rating) ? L(answerKeys[rating - 1]) : "?"
    }

    /// Parses a `--rating` value: 1…7, or `none` for a declined rating.
    public static func parseOption(_ text: String) throws -> RatingOutcome {
        if ["none", "no", "0"].contains(text.lowercased()) { return .declined }
        guard let value = Int(text), (1...7).contains(value) else {
            throw UNITIError(L("son.rating.badOption", ["value": text]))
        }
        return .rated(value)
    }
}

/// How the rating question ended; stored with the session.
public enum RatingOutcome: Sendable, Hashable {
    case rated(Int)
    case declined
    case timedOut

    /// As stored: "rated", "declined", "timedOut".
    public var ending: String {
        switch self {
        case .rated: return "rated"
        case .declined: return "declined"
        case .timedOut: return "timedOut"
        }
    }

    public var rating: Int? {
        if case .rated(let value) = self { return value }
        return nil
    }
}

/// Waits until the person has typed something, or gives up after a time. Injected so that the
/// 30-second timeout is tested without waiting.
public protocol AnswerWaiter: Sendable {
    /// True when input is ready to be read, false when `seconds` passed without any.
    func waitForInput(seconds: TimeInterval) -> Bool
}

/// Polls standard input (only meaningful on a terminal; a script's answer is always ready).
public struct StandardInputWaiter: AnswerWaiter {
    public init() {}

    public func waitForInput(seconds: TimeInterval) -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(seconds * 1000)) > 0
    }
}

/// Asks the CGI question through the shell's input.
public struct RatingPrompt {
    let input: any LineInput
    let console: Console
    let waiter: any AnswerWaiter

    public init(input: any LineInput, console: Console, waiter: any AnswerWaiter) {
        self.input = input
        self.console = console
        self.waiter = waiter
    }

    /// Shows the question and the answers; returns the person's choice, `.declined` for "no
    /// rating", and `.timedOut` when nothing came within the timeout (or input ended).
    public func ask(timeout: TimeInterval = CGIRating.timeout) throws -> RatingOutcome {
        console.line(L("son.cgi.question"))
        for (index, key) in CGIRating.answerKeys.enumerated() {
            console.line("  \(index + 1)  \(L(key))")
        }
        console.line("  0  \(L("son.cgi.none"))")
        var attempts = 0
        while attempts < 3 {
            attempts += 1
            if input.isInteractive {
                console.line(L("son.cgi.closesIn", count: Int(timeout)))
                guard waiter.waitForInput(seconds: timeout) else {
                    console.line(L("son.cgi.timedOut"))
                    return .timedOut
                }
            }
            guard let line = try input.readLine(prompt: L("son.cgi.prompt")) else { return .timedOut }
            let answer = line.trimmingCharacters(in: .whitespaces)
            if answer.isEmpty || answer == "0" || answer.lowercased() == "none" { return .declined }
            if let value = Int(answer), (1...7).contains(value) { return .rated(value) }
            console.error(L("son.cgi.invalid", ["answer": answer]))
        }
        return .declined
    }
}
