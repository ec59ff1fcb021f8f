/// What valid study and module identifiers look like.
public enum StudyRules {
    /// The module ids a study may enable.
    public static let knownModules: Set<String> = ["tyt", "tys", "tyh", "tn", "son"]

    /// Lower-case letters, digits and `-`, 1 to 64 characters, starting with a letter or digit.
    public static func isValidId(_ id: String) -> Bool {
        guard (1...64).contains(id.count), let first = id.unicodeScalars.first, first != "-" else { return false }
        return id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }
    }
}
