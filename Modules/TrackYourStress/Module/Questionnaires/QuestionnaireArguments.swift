import UNITICore

// Tab offers the ids of the person's study questionnaires wherever a command takes one.
extension FillCommand: StudyQuestionnaireArgument {}
extension ResultsCommand: StudyQuestionnaireArgument {}
extension SheetsCommand: StudyQuestionnaireArgument {}
extension RemindersCommand.Show: StudyQuestionnaireArgument {}
extension RemindersCommand.Standard: StudyQuestionnaireArgument {}
extension RemindersCommand.Custom: StudyQuestionnaireArgument {}
extension RemindersCommand.Day: StudyQuestionnaireArgument {}
extension RemindersCommand.Window: StudyQuestionnaireArgument {}
extension RemindersCommand.Reset: StudyQuestionnaireArgument {}
