import UNITIProtocol
import UNITIServer

/// Track Your Stress on the study server: the module made for the questionnaires a study defines
/// itself (its thesis's server-defined questionnaires), so a questionnaire the program does not
/// bundle is presented by it unless the coordinator names another (`questionnaire import --module`).
package struct TrackYourStressServerPart: StudyQuestionnairePresenting {
    package init() {}

    package var id: ModuleID { .tys }
}
