import ArgumentParser
import Foundation
import UNITICore

/// `tyt feedback [TEXT] [--email ADDRESS]`: asks for the text (and, optionally, an address for a
/// reply) when not given, checks the address, stores and queues it.
struct FeedbackCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "feedback", abstract: L("tyt.feedback.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tyt.feedback.text"), valueName: "TEXT")) var words: [String] = []
    @Option(name: .long, help: ArgumentHelp(L("tyt.feedback.email"), valueName: "ADDRESS")) var email: String?

    init() {}

    func run(in context: ModuleContext) throws {
        var text = words.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        var address = email
        if text.isEmpty {
            text = try context.input.requireLine(prompt: L("tyt.feedback.askText") + " ").trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw UNITIError(L("tyt.feedback.empty")) }
            if address == nil {
                let answer = try context.input.readLine(prompt: L("tyt.feedback.askEmail") + " ")?.trimmingCharacters(in: .whitespaces)
                address = answer?.isEmpty == false ? answer : nil
            }
        }
        if let address, !Self.looksLikeEmail(address) {
            throw UNITIError(L("tyt.feedback.badEmail", ["email": address]))
        }
        let now = context.clock.now
        try context.records.save(Feedback(id: UUID().uuidString, text: text, email: address, createdAt: now, updatedAt: now), at: now)
        context.console.line(L("tyt.feedback.queued"))
    }

    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".")
            && !parts[1].hasSuffix(".") && !text.contains(" ")
    }
}
