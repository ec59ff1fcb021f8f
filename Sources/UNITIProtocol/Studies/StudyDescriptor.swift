/// What the client needs to know about a study to decide which modules it enables.
///
/// The same shape is bundled as the offline default study (`Configurations/Resources/
/// default-study.json`) and, with more fields, served by the study server.
public struct StudyDescriptor: Codable, Hashable, Sendable {
    public var id: String
    public var title: LocalizedText
    public var description: LocalizedText?
    /// Ids of the feature modules this study enables (`tyt`, `son`, ...).
    public var modules: [String]
    /// Ids of the shared baseline questionnaires, answered once after the first login in the
    /// integrated program; nil leaves the choice to the bundled default study
    /// (``baselineModules``).
    public var baseline: [String]?
    /// In the bundled default study: the modules whose studies share its ``baseline`` when they
    /// name none (the tinnitus case history is asked in a tinnitus study, not in a mood study).
    public var baselineModules: [String]?
    /// Ids of studies bundled with the program (`Configurations/Resources/Studies/<id>.json`)
    /// whose questionnaires a person has without a server while this study is active: the
    /// default study lists the Track Your Stress demo study here.
    public var bundledStudies: [String]?
    /// What taking part means, in plain words: what is collected, where it goes, how to leave
    /// (the bundled default study's own; a server study's comes with its version in ``StudyInfo``).
    public var consent: LocalizedText?
    /// For a randomised participant: what their arm asks of them now (``StudyInfo/notice``).
    public var notice: LocalizedText?
    /// For a participant of a trial with visits: their visits (``StudyInfo/visits``).
    public var visits: [StudyVisit]?
    /// The languages the study's texts are written in, the first the one a reader of another
    /// language reads before English (``StudyInfo/languages``); nil: English is the fallback.
    public var languages: [String]?

    /// The language a study text missing in the reader's language falls back to before English.
    public var fallbackLanguage: String? { languages?.first }

    public init(id: String, title: LocalizedText, description: LocalizedText? = nil, modules: [String], baseline: [String]? = nil,
                bundledStudies: [String]? = nil, consent: LocalizedText? = nil) {
        self.consent = consent
        self.id = id
        self.title = title
        self.description = description
        self.modules = modules
        self.baseline = baseline
        self.bundledStudies = bundledStudies
    }
}
