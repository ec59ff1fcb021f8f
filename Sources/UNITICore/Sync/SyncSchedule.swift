import Foundation
import GRDB
import UNITIProtocol

/// When a program on this data directory last tried to reach the server, and when a shell
/// waiting at its prompt tries again: answers given offline go out by themselves once the
/// network is back (Track Your Stress FR2 "im Hintergrund", TinnitusNavigator FR6
/// "automatisch"), without the person typing another command.
///
/// Every sync, of any program, records its outcome here (``SyncEngine/run(force:waitsForOthers:retriesPending:)``).
/// A failed one puts the next background try off by a back-off that starts at 30 s and doubles
/// up to 15 minutes, jittered so that devices that lost the same server do not all come back at
/// once; a success resets it to 30 s. Kept in the settings table, so every program on the data
/// directory shares one schedule and `sync --status` in another terminal shows it; two shells
/// at their prompts take turns through the sync lock, and a try that finds another program
/// syncing records nothing. An explicit `sync` and the sync after a command that saved
/// something are not held back by it: the person asked, or just gave something new.
public struct SyncSchedule: Sendable, Equatable {
    /// When a sync last ran (whatever its outcome).
    public var lastAttempt: OffsetTimestamp?
    /// When a waiting shell tries next; nil before any try (due at once).
    public var nextAttempt: OffsetTimestamp?
    /// Failed tries since the last success.
    public var failures: Int

    public init(lastAttempt: OffsetTimestamp? = nil, nextAttempt: OffsetTimestamp? = nil, failures: Int = 0) {
        self.lastAttempt = lastAttempt
        self.nextAttempt = nextAttempt
        self.failures = failures
    }

    /// 30 s, 60 s, 2 min, ... up to 15 min between background tries while the server cannot be
    /// reached. The first step is long enough that a shell left open offline for a day costs the
    /// server nothing worth counting, short enough that an answer follows the network quickly.
    public static let backoff = Backoff(base: 30, cap: 15 * 60)

    static let lastAttemptKey = "sync.lastAttempt"
    static let nextAttemptKey = "sync.nextAttempt"
    static let failuresKey = "sync.failures"

    /// Whether a background try is due at `now`.
    public func isDue(at now: Date) -> Bool {
        nextAttempt.map { $0.date <= now } ?? true
    }

    /// The schedule after a try at `now`: a success waits the first step again, a failure one
    /// more step of ``backoff``.
    public func after(succeeded: Bool, at now: Date, in timeZone: TimeZone,
                      using random: inout some RandomNumberGenerator) -> SyncSchedule {
        let failures = succeeded ? 0 : self.failures + 1
        let wait = succeeded ? Self.backoff.base : Self.backoff.delay(afterAttempts: failures, using: &random)
        return SyncSchedule(lastAttempt: OffsetTimestamp(now, in: timeZone),
                            nextAttempt: OffsetTimestamp(now.addingTimeInterval(wait), in: timeZone),
                            failures: failures)
    }

    /// The stored schedule (an empty one when nothing was recorded yet).
    public static func read(_ db: Database) throws -> SyncSchedule {
        SyncSchedule(lastAttempt: try SettingsStore.read(db, lastAttemptKey).flatMap(OffsetTimestamp.init(parsing:)),
                     nextAttempt: try SettingsStore.read(db, nextAttemptKey).flatMap(OffsetTimestamp.init(parsing:)),
                     failures: try SettingsStore.read(db, failuresKey).flatMap { Int($0) } ?? 0)
    }

    public static func read(from database: AppDatabase) throws -> SyncSchedule {
        try database.writer.read { db in try read(db) }
    }

    /// Records the outcome of a try at `now`, read and written in the caller's transaction
    /// (so two programs finishing at once do not lose a step).
    @discardableResult
    public static func record(_ db: Database, succeeded: Bool, at now: Date, in timeZone: TimeZone,
                              using random: inout some RandomNumberGenerator) throws -> SyncSchedule {
        let next = try read(db).after(succeeded: succeeded, at: now, in: timeZone, using: &random)
        try SettingsStore.write(db, lastAttemptKey, next.lastAttempt?.text)
        try SettingsStore.write(db, nextAttemptKey, next.nextAttempt?.text)
        try SettingsStore.write(db, failuresKey, String(next.failures))
        return next
    }
}
