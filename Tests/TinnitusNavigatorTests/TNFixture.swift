import Foundation
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// The module in the shared harness: Berlin, Monday 2026-11-23 10:00, scripted input.
struct TNFixture {
    let harness: ModuleHarness
    var services: CoreServices { harness.services }
    var context: ModuleContext { harness.context() }
    var output: CapturedOutput { harness.output }
    var store: HealthRecordStore { HealthRecordStore(context) }

    static let today = LocalDate(year: 2026, month: 11, day: 23)
    static let now = today.instant(at: TimeOfDay(hour: 10, minute: 0), in: ModuleHarness.berlin)

    init(input: [String] = [], program: ProgramKind = .integrated, now: Date = TNFixture.now) throws {
        harness = try ModuleHarness(TinnitusNavigatorModule(), program: program, input: input, now: now)
    }

    /// Runs a command line and returns what it printed (standard output and errors).
    @discardableResult
    func run(_ line: String) -> (succeeded: Bool, out: String, err: String) { harness.runCapturing(line) }
}
