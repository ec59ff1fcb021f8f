import UNITIProtocol

/// Which questions must be answered before a sheet can be saved: as the definition marks them,
/// or every one (Tinnitus Navigator thesis, FR8: a clinical questionnaire is saved only when it
/// is filled out completely, whatever its definition marks, because a score over some of the
/// items means nothing).
///
/// Applied to the definition before it is answered, so the page marks every question, `save`
/// is refused while one is open, and the session's final check agrees; the sheet still names
/// the definition's id and version unchanged.
public enum RequiredAnswers: Sendable, Hashable {
    /// The definition's own `required` flags.
    case asDefined
    /// Every question this version can ask. A question of a type this version does not know
    /// is never required (nobody could answer it): it is shown as not supported and skipped,
    /// and the rest of the questionnaire can still be saved (Tinnitus Navigator thesis, NFR5).
    /// Hidden questions stay unrequired, as always.
    case everyQuestion

    /// The definition with this rule's `required` flags.
    public func applied(to definition: QuestionnaireDefinition) -> QuestionnaireDefinition {
        self == .everyQuestion ? definition.everyQuestionRequired() : definition
    }
}
