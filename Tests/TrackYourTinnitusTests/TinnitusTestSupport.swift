import Foundation
@testable import TrackYourTinnitus
import UNITICore
import UNITITesting

/// The shared harness around the module (integrated by default), with scripted input, captured
/// output and a fixed clock in Berlin.
struct TinnitusFixture {
    let harness: ModuleHarness
    let module = TrackYourTinnitusModule()
    var services: CoreServices { harness.services }
    var context: ModuleContext { harness.context() }
    var output: CapturedOutput { harness.output }
    var clock: FixedClock { harness.clock }

    static let berlin = ModuleHarness.berlin

    init(input: [String] = [], now: Date = ModuleHarness.defaultNow, program: ProgramKind = .integrated,
         directory: DataDirectory? = nil, microphone: SoundInput = ModuleHarness.noMicrophone) throws {
        harness = try ModuleHarness(TrackYourTinnitusModule(), program: program, input: input, now: now, directory: directory,
                                    microphone: microphone)
    }
}
