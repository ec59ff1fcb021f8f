import UNITIText

/// A yes-or-no answer typed by a person, in any of the languages (``AnswerWords``): anything
/// else, the empty answer included, is no, so a slip never confirms something that cannot be undone.
public enum Confirmation {
    public static func isYes(_ answer: String) -> Bool {
        AnswerWords.yes.contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// An explicit no, for a question where anything else is neither.
    public static func isNo(_ answer: String) -> Bool {
        AnswerWords.no.contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
