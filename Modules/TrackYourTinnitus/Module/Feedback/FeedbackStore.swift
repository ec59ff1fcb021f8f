import Foundation
import GRDB
import UNITICore

/// Feedback to the team (thesis FR12): stored in `tyt_feedback` and queued as a module record
/// in the same transaction, so it is sent by the next sync even when written offline.
struct FeedbackStore {
    struct Payload: Codable, Equatable {
        let kind: String
        let text: String
        let email: String?
        let writtenAt: String
    }

    let database: AppDatabase

    func save(text: String, email: String?, at date: Date, moduleID: String) throws -> String {
        let id = UUID().uuidString
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO tyt_feedback(id, text, email, createdAt) VALUES (?, ?, ?, ?)",
                           arguments: [id, text, email, date.timeIntervalSince1970])
            try RecordOutbox.save(db, moduleID: moduleID, clientID: "feedback-\(id)",
                                  payload: Payload(kind: "feedback", text: text, email: email,
                                                   writtenAt: ISO8601DateFormatter().string(from: date)),
                                  updatedAt: date)
        }
        return id
    }

    func count() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tyt_feedback") ?? 0 }
    }
}
