import Foundation
import UNITIConfigurations
import UNITIProtocol

/// Which module presents a questionnaire on the devices, when the coordinator did not say.
///
/// A questionnaire that ships with the program (`Configurations/Resources/Questionnaires/<id>.json`)
/// stays with the module that ships it, so that a study offering it is answered in the same place
/// as the bundled one: the module named by the id's prefix before the first `-` (`tyt-momentary`
/// → `tyt`), or the shell (`uniti-case-history`, `tinnitus-distress-12`) when that prefix is no
/// known module. Any other questionnaire is a study questionnaire, presented by the module whose
/// server part says it presents them (``StudyQuestionnairePresenting``), or by
/// the shell when none does.
enum QuestionnaireModules {
    /// The module for `id` when nobody chose one (see the type's description).
    static func defaultModule(for id: String, modules: ServerModules, bundledIds: Set<String> = bundledIds) -> ModuleID {
        guard bundledIds.contains(id) else { return modules.studyQuestionnaireModule }
        let prefix = id.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? id
        return ModuleCatalog.module(named: prefix)?.id ?? .shell
    }

    /// The ids of the bundled questionnaires: their file names, which are their ids (the core's
    /// `QuestionnaireLoader.bundled(_:)` finds them the same way). Read once, when first needed.
    static let bundledIds: Set<String> = Set(BundledConfiguration.files.folder("Questionnaires").files
        .map(\.path).filter { $0.hasSuffix(".json") }.map { String($0.dropLast(".json".count)) })
}
