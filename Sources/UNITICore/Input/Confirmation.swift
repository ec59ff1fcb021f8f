/// A yes-or-no answer typed by a person, in either language (`y`, `yes`, `j`, `ja`): anything
/// else, the empty answer included, is no, so a slip never confirms something that cannot be undone.
public enum Confirmation {
    public static func isYes(_ answer: String) -> Bool {
        ["y", "yes", "j", "ja"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// An explicit no (`n`, `no`, `nein`), for a question where anything else is neither.
    public static func isNo(_ answer: String) -> Bool {
        ["n", "no", "nein"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
