import Foundation
import Synchronization
import Testing
@testable import UNITIServer

/// ``GroupCommit`` on a real SQLite store: uploads that queue up while one transaction runs share
/// the next one, and when that shared transaction fails, each of its writes is tried again in a
/// transaction of its own, so one bad upload never fails the others and nothing is written twice.
@Suite("Group commit (SQLite)", .timeLimit(.minutes(2)))
struct GroupCommitTests {
    struct Refused: Error {}

    /// What the jobs tell each other and the test.
    final class Progress: Sendable {
        let firstRunning = Mutex(false)
        let submitted = Mutex(0)
        /// How often each job's write ran.
        let attempts = Mutex<[Int: Int]>([:])
    }

    @Test("a shared transaction that fails is rolled back and its writes retried one per transaction: the good ones stored once, the bad one refused")
    func retriesOneAtATime() async throws {
        let opened = try await StoreKind.sqlite.open()
        let database = try #require(opened.store.database as? SQLiteDatabase)
        try await database.execute("CREATE TABLE group_commit_test (job INTEGER NOT NULL)")
        let progress = Progress()
        let commit = GroupCommit<Int, Int>(writer: database) { db, job in
            if job == 0 {
                // The first transaction holds the writer until every other job has queued behind it.
                // (`submit` queues a job without suspending, right after it is counted.) A write
                // runs on the writer's thread without suspending, so it waits by sleeping.
                progress.firstRunning.withLock { $0 = true }
                while progress.submitted.withLock({ $0 }) < 5 { usleep(5_000) }
                usleep(300_000)
            }
            try db.execute("INSERT INTO group_commit_test (job) VALUES (\(job))")
            progress.attempts.withLock { $0[job, default: 0] += 1 }
            if job == 3 { throw Refused() }
            return job * 10
        }
        let jobs = 0..<6
        let results = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for job in jobs {
                group.addTask {
                    if job > 0 {
                        // The refused job queues last, so the shared transaction runs every other one first.
                        while !progress.firstRunning.withLock({ $0 }) || (job == 3 && progress.submitted.withLock({ $0 }) < 4) {
                            try? await Task.sleep(for: .milliseconds(5))
                        }
                        if job == 3 { try? await Task.sleep(for: .milliseconds(50)) }
                        progress.submitted.withLock { $0 += 1 }
                    }
                    do { return (job, .success(try await commit.submit(job))) } catch { return (job, .failure(error)) }
                }
            }
            var results: [Int: Result<Int, any Error>] = [:]
            for await (job, result) in group { results[job] = result }
            return results
        }
        for job in jobs where job != 3 {
            #expect(try results[job]?.get() == job * 10, "job \(job)")
        }
        #expect(throws: Refused.self) { try results[3]?.get() }
        let stored = try await database.rows("SELECT job FROM group_commit_test ORDER BY job").map { try $0["job"] as Int }
        #expect(stored == [0, 1, 2, 4, 5], "every good write once, the refused one not at all")
        let tried = progress.attempts.withLock { $0 }
        #expect(tried[0] == 1, "the first transaction held job 0 alone and committed")
        for job in [1, 2, 3, 4, 5] {
            #expect(tried[job] == 2, "job \(job): once in the shared transaction that failed, once alone: \(tried)")
        }
        await opened.close()
    }
}
