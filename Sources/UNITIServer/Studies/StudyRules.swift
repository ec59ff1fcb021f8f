import UNITIProtocol

/// What valid study identifiers and a study's modules look like.
public enum StudyRules {
    /// Fewest characters of a study's join password (`study create|update --password`): issue 27
    /// raised it from 4. A shorter one set before keeps working; `study show` warns about it.
    public static let minimumPasswordLength = 8

    /// Lower-case letters, digits and `-`, 1 to 64 characters, starting with a letter or digit.
    public static func isValidId(_ id: String) -> Bool {
        guard (1...64).contains(id.count), let first = id.unicodeScalars.first, first != "-" else { return false }
        return id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }
    }

    /// The modules a study enables, from ids as a coordinator gives them: each must be a known
    /// module (``ModuleCatalog``; the shell `uniti` is none), kept in the order given, each once.
    /// Throws 422 `unknown_module` naming the first unknown id and the known ones.
    static func enabledModules(_ ids: [String]) throws -> [ModuleID] {
        var modules: [ModuleID] = []
        for id in ids {
            let known = try knownModule(id)
            if !modules.contains(known) { modules.append(known) }
        }
        return modules
    }

    /// A known module (``ModuleCatalog``; the shell `uniti` is none) by its id, as a study enables
    /// it or a questionnaire is presented by it. Throws 422 `unknown_module` naming the known ones.
    static func knownModule(_ id: String) throws -> ModuleID {
        guard let known = ModuleCatalog.module(named: id) else {
            throw APIError.invalid("unknown_module", "Unknown module '\(id.prefix(32))'; known: \(knownModuleList).")
        }
        return known.id
    }

    /// The known module ids, comma-separated in list order, for messages and help.
    static var knownModuleList: String {
        ModuleCatalog.ids.map(\.rawValue).joined(separator: ", ")
    }
}
