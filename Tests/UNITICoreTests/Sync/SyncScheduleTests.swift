import Foundation
import GRDB
import Testing
@testable import UNITICore

/// The background try's back-off on an injected clock and random source: how long a shell at its
/// prompt waits after each failure, and that the schedule lives in the database.
@Suite("Sync schedule", .timeLimit(.minutes(10)))
struct SyncScheduleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let utc = TimeZone(identifier: "UTC")!

    @Test("each failed try puts the next one off by a step that doubles from 30 s to 15 minutes, jittered within its upper half; a success waits 30 s again")
    func backoffSteps() throws {
        var random = TestRandom(state: 5)
        var schedule = SyncSchedule()
        #expect(schedule.isDue(at: start), "never tried: due at once")
        var now = start
        var waits: [TimeInterval] = []
        for failures in 1...9 {
            schedule = schedule.after(succeeded: false, at: now, in: utc, using: &random)
            let next = try #require(schedule.nextAttempt?.date)
            let wait = next.timeIntervalSince(now)
            let ceiling = min(15 * 60, 30 * pow(2, Double(failures - 1)))
            #expect(schedule.failures == failures)
            #expect(schedule.lastAttempt?.date == now)
            // Kept to the second: the lower bound rounds down with it.
            #expect(wait >= (ceiling / 2).rounded(.down) && wait <= ceiling, "step \(failures): \(wait) s")
            #expect(!schedule.isDue(at: next.addingTimeInterval(-1)))
            #expect(schedule.isDue(at: next))
            waits.append(wait)
            now = next
        }
        #expect(waits.last! >= 450, "the cap is 15 minutes, not less: \(waits)")
        let reset = schedule.after(succeeded: true, at: now, in: utc, using: &random)
        #expect(reset.failures == 0)
        #expect(reset.lastAttempt?.date == now)
        #expect(reset.nextAttempt?.date == now.addingTimeInterval(30))
        // After the success, a failure starts from the first step again.
        let again = reset.after(succeeded: false, at: now, in: utc, using: &random)
        #expect(again.failures == 1)
        #expect(try #require(again.nextAttempt?.date).timeIntervalSince(now) <= 30)
    }

    @Test("the schedule is kept in the database: another connection to the data directory reads what a sync recorded")
    func sharedThroughTheDatabase() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let one = try AppDatabase(path: dir + "/db.sqlite", migrationSets: CoreMigrations.all)
        var random = TestRandom(state: 9)
        let recorded = try one.writer.write { db in
            try SyncSchedule.record(db, succeeded: false, at: start, in: utc, using: &random)
            return try SyncSchedule.record(db, succeeded: false, at: start.addingTimeInterval(20), in: utc, using: &random)
        }
        #expect(recorded.failures == 2)
        let other = try AppDatabase(path: dir + "/db.sqlite", migrationSets: CoreMigrations.all)
        let read = try SyncSchedule.read(from: other)
        #expect(read == recorded)
        #expect(read.lastAttempt?.text == "2027-01-15T08:00:20+00:00")
        #expect(!read.isDue(at: start.addingTimeInterval(20 + 29)))
        #expect(read.isDue(at: start.addingTimeInterval(20 + 60)))
    }
}
