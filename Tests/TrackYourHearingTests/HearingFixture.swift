import Foundation
@testable import TrackYourHearing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// The module in the shared harness: Berlin, Monday 2026-11-23 10:00, scripted input.
struct HearingFixture {
    let harness: ModuleHarness
    var services: CoreServices { harness.services }
    var context: ModuleContext { harness.context() }
    var output: CapturedOutput { harness.output }

    static let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 10, minute: 0), in: ModuleHarness.berlin)
    /// Answers to the bundled questionnaire: impairment, situation, device, effort, mood, arousal.
    static let answers = ["40", "3", "0", "60", "4", "2"]

    init(input: [String] = [], program: ProgramKind = .integrated, now: Date = HearingFixture.now) throws {
        harness = try ModuleHarness(TrackYourHearingModule(), program: program, input: input, now: now)
    }

    /// Runs a command line and returns what it printed (standard output and errors).
    @discardableResult
    func run(_ line: String) -> (succeeded: Bool, out: String, err: String) { harness.runCapturing(line) }

    var reminders: HearingReminders { HearingReminders(context: context) }
}
