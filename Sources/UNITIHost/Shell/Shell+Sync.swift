import Foundation
import UNITICore
import UNITIProtocol

extension Shell {
    /// The session store, with `--server` for this run taking precedence over the stored address.
    public var sessions: SessionStore {
        services.sessions
    }

    /// Runs one API call with the configured server and session; API errors become one line.
    func api<T>(_ body: (APIClient) throws -> T) throws -> T {
        let client = try services.apiClient()
        return try sessions.performing { try body(client) }
    }

    /// Syncs now, in the foreground. Without a server or a login there is nothing to do (quietly
    /// so when `quiet`); an error is one line and nothing is lost.
    func syncNow(force: Bool, quiet: Bool) throws {
        guard try sessions.serverURL() != nil, try sessions.current() != nil else {
            if !quiet { throw UNITIError(localizer("host.sync.offline")) }
            return
        }
        let engine = SyncEngine(services: services, modules: registry.modules, client: try services.apiClient())
        let report = engine.run(force: force)
        if report.anotherSyncRunning {
            if !quiet { throw UNITIError(localizer("host.sync.otherRunning")) }
            return
        }
        for problem in report.resourceProblems + report.questionnaireProblems {
            console.error(localizer("host.sync.notice", ["message": problem]))
        }
        // A new consent version asks again at each sync and login until the person agrees.
        for study in (try? SyncEngine.studiesAwaitingConsent(of: services)) ?? [] {
            console.line(localizer("host.study.consent.pending", ["study": study]))
        }
        remindDueVisits()
        if let problem = report.stoppedBecause {
            throw sessions.userFacingError(for: problem)
        }
        if !quiet {
            console.line(localizer("host.sync.done", [
                "sheets": localizer("host.sync.count.sheets", count: report.sheetsDelivered),
                "records": localizer("host.sync.count.records", count: report.recordsDelivered),
                "pulled": localizer("host.sync.count.records", count: report.recordsPulled), "rejected": "\(report.rejected)",
            ]))
            // Sheets held for a consent are named by the consent notice above.
            if report.waiting > report.waitingForConsent {
                console.line(localizer("host.sync.waitingNotice", count: report.waiting - report.waitingForConsent))
            }
        }
    }

    /// Reminds of each visit of a joined study whose window is open and whose questionnaires are
    /// not all answered (issue 48), from the visits the last sync brought: after each sync and at
    /// the start of an interactive session, so a reminder follows the clock between syncs.
    func remindDueVisits() {
        let language = CurrentLanguage.value.rawValue, zone = services.clock.timeZone
        for study in (try? StudyCatalog(database: services.database).joinedStudies()) ?? [] {
            for visit in StudyVisit.due(study.visits ?? [], at: services.clock.now) {
                let until = OffsetTimestamp(parsing: visit.closes).map { OffsetTimestamp($0.date.addingTimeInterval(-60), in: zone).minuteText } ?? visit.closes
                console.line(localizer("host.study.visit.reminder", [
                    "visit": visit.title.text(in: language, fallback: study.fallbackLanguage),
                    "study": study.title.text(in: language, fallback: study.fallbackLanguage), "until": until,
                    "questionnaires": visit.questionnaires.joined(separator: ", "),
                ]))
            }
        }
    }

    /// Syncs after a command that already succeeded (login, joining a study): a sync problem is
    /// reported as a notice, and the command still counts as done.
    func syncAfterSuccess() {
        do {
            try syncNow(force: true, quiet: true)
        } catch {
            console.error(localizer("host.sync.notice", ["message": (error as? UNITIError)?.message ?? "\(error)"]))
        }
    }

    /// Starts a background sync when something waits in the outbox and a session exists.
    func syncInBackgroundIfQueued() {
        guard (try? Outbox(database: services.database).due(at: services.clock.now, limit: 1).isEmpty) == false else { return }
        syncInBackground()
    }

    /// While the prompt waits (asked about once a second): sends what waits in the outbox when
    /// the shared ``SyncSchedule`` says a try is due, so answers given offline reach the server
    /// once it can be reached, without another command. Two reads when nothing is due; the
    /// sync itself runs on its own thread and writes nothing to the terminal, so the line being
    /// typed stays as it is.
    func retrySyncIfDue() {
        guard !backgroundSync.value,
              let schedule = try? SyncSchedule.read(from: services.database), schedule.isDue(at: services.clock.now),
              let pending = try? services.outbox.count(.pending), pending > 0 else { return }
        syncInBackground(retriesPending: true)
    }

    /// Starts a sync on a background thread (after a saved sheet, at start, from the prompt's
    /// retries) so the prompt never waits for the network. At most one runs at a time; failures
    /// only show in `sync --status`.
    public func syncInBackground(retriesPending: Bool = false) {
        guard (try? sessions.serverURL()) ?? nil != nil, (try? sessions.current()) ?? nil != nil,
              let client = try? services.apiClient() else { return }
        guard backgroundSync.withValue({ running in
            if running { return false }
            running = true
            return true
        }) else { return }
        let engine = SyncEngine(services: services, modules: registry.modules, client: client)
        let flag = backgroundSync
        Thread.detachNewThread {
            engine.run(force: false, waitsForOthers: false, retriesPending: retriesPending)
            flag.value = false
        }
    }
}

extension Shell {
    /// Gives a running background sync a moment to finish before the program ends. Cutting it
    /// short loses nothing (the outbox keeps what was not acknowledged); waiting just saves a retry.
    public func waitForBackgroundSync(timeout: TimeInterval = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while backgroundSync.value && Date() < deadline { usleep(20_000) }
    }
}
