import Synchronization

/// Group commit: writes submitted concurrently share one transaction.
///
/// For SQLite, which has one writer: the server commits with `synchronous = FULL`, so every
/// transaction waits for the disk (about a millisecond here). With one transaction per request, many
/// small concurrent uploads were limited by that wait, not by work. Here, while one transaction
/// commits, later submissions queue up; the next transaction takes all of them (up to
/// `maximumGroup`). Each caller still returns only after the transaction holding its write has
/// committed, so an acknowledged write stays durable. When a shared transaction fails, its writes
/// are tried again one per transaction, so one bad write never fails the others. A group's
/// statements run in one turn on the writer (``SQLiteDatabase/writeTransaction(_:)``), so a
/// write is synchronous: it never waits for anything but SQLite.
final class GroupCommit<Input: Sendable, Output: Sendable>: Sendable {
    typealias Write = @Sendable (SQLiteDatabase.Statements, Input) throws -> Output

    private struct Job: Sendable {
        let input: Input
        let continuation: CheckedContinuation<Output, any Error>
    }

    private struct State: Sendable {
        var queued: [Job] = []
        var draining = false
    }

    private let writer: SQLiteDatabase
    private let write: Write
    private let maximumGroup: Int
    private let state = Mutex(State())

    init(writer: SQLiteDatabase, maximumGroup: Int = 256, write: @escaping Write) {
        self.writer = writer
        self.write = write
        self.maximumGroup = maximumGroup
    }

    /// Runs `write` for `input` in a transaction, possibly shared; returns after it committed.
    func submit(_ input: Input) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startDraining = state.withLock { state in
                state.queued.append(Job(input: input, continuation: continuation))
                if state.draining { return false }
                state.draining = true
                return true
            }
            if startDraining {
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while true {
            let jobs = state.withLock { state -> [Job] in
                let jobs = Array(state.queued.prefix(maximumGroup))
                state.queued.removeFirst(jobs.count)
                if jobs.isEmpty { state.draining = false }
                return jobs
            }
            if jobs.isEmpty { return }
            let write = self.write
            do {
                let inputs = jobs.map(\.input)
                let outputs = try await writer.writeTransaction { db in try inputs.map { try write(db, $0) } }
                for (job, output) in zip(jobs, outputs) { job.continuation.resume(returning: output) }
            } catch {
                if jobs.count == 1 {
                    jobs[0].continuation.resume(throwing: error)
                    continue
                }
                for job in jobs {
                    do {
                        let input = job.input
                        job.continuation.resume(returning: try await writer.writeTransaction { db in try write(db, input) })
                    } catch {
                        job.continuation.resume(throwing: error)
                    }
                }
            }
        }
    }
}
