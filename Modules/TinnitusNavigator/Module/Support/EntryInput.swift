import Foundation
import UNITICore

/// How the record's commands read values a person types: dates, times, choices from a list,
/// and questions asked again until the answer is valid (a wrong value is named in one line and
/// nothing is kept until every answer is right).
struct EntryInput {
    let context: ModuleContext

    /// `YYYY-MM-DD HH:MM` (or with `T`) on the person's wall clock.
    static func dateTime(_ text: String, in timeZone: TimeZone) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(omittingEmptySubsequences: true) { $0 == " " || $0 == "T" }
        guard parts.count == 2, let date = try? LocalDate(parsing: String(parts[0])),
              let time = try? TimeOfDay(parsing: String(parts[1])) else {
            throw UNITIError(L("tn.input.error.dateTime", ["text": text]))
        }
        return date.instant(at: time, in: timeZone)
    }

    static func date(_ text: String) throws -> LocalDate {
        guard let date = try? LocalDate(parsing: text.trimmingCharacters(in: .whitespaces)) else {
            throw UNITIError(L("tn.input.error.date", ["text": text]))
        }
        return date
    }

    /// How a time is shown in listings: `YYYY-MM-DD HH:MM` on the person's wall clock.
    static func show(_ date: Date, in timeZone: TimeZone) -> String {
        "\(LocalDate(date, in: timeZone)) \(TimeOfDay(localTimeOf: date, in: timeZone))"
    }

    /// Asks until `parse` accepts the answer; an empty answer gives `empty` when there is one
    /// (a default, or "keep as it is" when editing). Each refusal is printed in one line.
    func ask<Value>(_ prompt: String, empty: Value? = nil, _ parse: (String) throws -> Value) throws -> Value {
        while true {
            let line = try context.input.requireLine(prompt: prompt).trimmingCharacters(in: .whitespaces)
            if line.isEmpty, let empty { return empty }
            do {
                return try parse(line)
            } catch let error as UNITIError {
                context.console.error(error.message)
            }
        }
    }

    /// Asks for an optional text: empty keeps `current` (nil when adding), `-` clears it.
    func askOptionalText(_ prompt: String, current: String?) throws -> String? {
        let line = try context.input.requireLine(prompt: prompt).trimmingCharacters(in: .whitespaces)
        if line.isEmpty { return current }
        return line == "-" ? nil : line
    }

    /// A numbered choice: the number, the key or the name in either language.
    func choose<Choice>(_ prompt: String, from choices: [Choice], title: (Choice) -> String, current: Choice? = nil,
                        parse: (String) throws -> Choice) throws -> Choice {
        for (index, choice) in choices.enumerated() {
            context.console.line("  \(index + 1)  \(title(choice))")
        }
        return try ask(prompt, empty: current) { text in
            if let number = Int(text), choices.indices.contains(number - 1) { return choices[number - 1] }
            return try parse(text)
        }
    }

    /// Whether to go ahead with a deletion: asked on a terminal only (a script says `--yes` or
    /// is trusted, as with other commands that read piped input).
    func confirmDeletion(_ what: String, skip: Bool) throws -> Bool {
        guard !skip, context.input.isInteractive else { return true }
        let answer = try context.input.requireLine(prompt: L("tn.delete.confirm", ["what": what]))
        return Confirmation.isYes(answer)
    }
}
