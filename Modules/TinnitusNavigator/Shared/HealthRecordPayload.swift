import Foundation

/// What every entry of the health record has, whatever its kind: a kind on the wire, an id, the
/// times it was made and last changed, and its problems by the shared rules. Code that treats
/// events, therapies and audiograms alike (the portal's store and forms) is written once against it.
public protocol HealthRecordPayload: Codable, Sendable, Hashable {
    /// The kind's name on the wire (`event`, `therapy`, `audiogram`).
    static var recordKind: String { get }
    var id: String { get }
    var createdAt: Date { get set }
    var updatedAt: Date { get set }
    /// Everything wrong with the entry; empty when it may be kept.
    var problems: [HealthRecordProblem] { get }
}

extension HealthEvent: HealthRecordPayload {}
extension Therapy: HealthRecordPayload {}
extension Audiogram: HealthRecordPayload {}
