import UNITICore

// Tab offers the ids of the studies the person knows (from the server's list, joined or not);
// `study leave` only those joined.
extension StudyCommand.Info: ArgumentValuesOffering {
    static func values(for argument: String, in context: ModuleContext) throws -> [String]? {
        try StudyCommand.knownIDs(context)
    }
}

extension StudyCommand.Join: ArgumentValuesOffering {
    static func values(for argument: String, in context: ModuleContext) throws -> [String]? {
        try StudyCommand.knownIDs(context)
    }
}

extension StudyCommand.Leave: ArgumentValuesOffering {
    static func values(for argument: String, in context: ModuleContext) throws -> [String]? {
        try context.studies.joinedStudies().map(\.id)
    }
}

extension StudyCommand {
    /// Every study known here but the bundled default one, which is no study of a server.
    static func knownIDs(_ context: ModuleContext) throws -> [String] {
        try context.studies.knownStudies().map(\.id).filter { $0 != StudyCatalog.defaultStudy.id }
    }
}
