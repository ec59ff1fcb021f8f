import Foundation
import Hummingbird
import UNITIProtocol

/// The questionnaire pages: the baseline and the study questionnaires as HTML forms, with the
/// draft the shell shares (`draft:<questionnaire>`).
extension PortalRoutes {
    func registerQuestionnairePages(on group: RouterGroup<ServerRequestContext>) {}
}
