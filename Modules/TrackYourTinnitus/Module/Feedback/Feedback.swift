import Foundation
import GRDB
import UNITICore

/// Feedback to the team (thesis FR12): a row of `tyt_feedback` and a synced record of `tyt`
/// (kind `feedback`), queued in the transaction that stores it, so it is sent by the next sync
/// even when written offline, and kept on the person's other devices.
struct Feedback: Codable, Equatable, SyncedTableRecord {
    static let databaseTableName = "tyt_feedback"
    static let recordKind = "feedback"

    var id: String
    var text: String
    var email: String?
    var createdAt: Date
    var updatedAt: Date

    var recordID: String { id }
}
