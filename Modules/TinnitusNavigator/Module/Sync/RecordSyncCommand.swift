import ArgumentParser
import Foundation
import UNITICore

/// `tn sync`: exchanges the record with the server now (thesis FR12, 6.1): sends what changed
/// here, fetches what changed elsewhere. Without a login or a server it says so in one line;
/// the record keeps working on this device and goes out with the next sync.
struct RecordSyncCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sync", abstract: L("tn.sync.abstract"))
    }

    init() {}

    func run(in context: ModuleContext) throws {
        guard let report = context.syncNow() else {
            let waiting = try context.outbox.undeliveredCount()
            throw UNITIError(L("tn.sync.offline", count: waiting))
        }
        if report.anotherSyncRunning {
            throw UNITIError(L("tn.sync.otherRunning"))
        }
        for problem in report.resourceProblems + report.questionnaireProblems {
            context.console.error(problem)
        }
        if let problem = report.stoppedBecause {
            // The record stays here and goes out with the next sync.
            throw UNITIError(L("tn.sync.stopped", ["reason": context.sessions.userFacingError(for: problem).message]))
        }
        context.console.line(L("tn.sync.done", ["sent": "\(report.recordsDelivered + report.sheetsDelivered)",
                                                "received": "\(report.recordsPulled)"]))
    }
}
