import Foundation

/// One version of one questionnaire: its resource id is the same for every person, so the
/// same definition has the same canonical URL in every export.
public struct QuestionnaireKey: Hashable, Comparable, Sendable {
    public let id: String
    public let version: Int

    public init(id: String, version: Int) {
        self.id = id
        self.version = version
    }

    public var resourceID: FHIRResourceID { FHIRResourceID.named("questionnaire/\(id)/\(version)") }

    public static func < (lhs: QuestionnaireKey, rhs: QuestionnaireKey) -> Bool { (lhs.id, lhs.version) < (rhs.id, rhs.version) }
}
