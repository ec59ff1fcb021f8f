import ArgumentParser

/// A command whose arguments take values known only at run time (the sounds of the catalogue,
/// the person's questionnaires, studies and records), so that Tab in the shell offers them.
///
/// Values fixed in the code need nothing more: an argument typed as a `CaseIterable` enum
/// (``OnOff``, any ``LocalizedArgumentWords``) or declared with `completion: .list(...)` is
/// offered from its declaration, as swift-argument-parser describes it.
public protocol ArgumentValuesOffering: ParsableCommand {
    /// The values `argument` may take now, nil for an argument this command offers nothing for.
    /// - Parameter argument: a positional argument's value name (`sound`, `id`) or an option's
    ///   long name without its dashes (`compare`).
    static func values(for argument: String, in context: ModuleContext) throws -> [String]?
}

extension CompletionKind {
    /// The English short weekday names (`mon` ... `sun`), which every weekday argument takes.
    public static var weekdays: CompletionKind { .list(Weekday.allCases.map(\.description)) }
}

/// A command that takes one of its module's study questionnaires by id (`tys fill ID`,
/// `tn scores ID`): Tab offers the ids of the questionnaires the person's studies give it.
public protocol StudyQuestionnaireArgument: ArgumentValuesOffering {}

extension StudyQuestionnaireArgument {
    public static func values(for argument: String, in context: ModuleContext) throws -> [String]? {
        argument == "ID" ? try context.studyQuestionnaires.questionnaires().map(\.id) : nil
    }
}
