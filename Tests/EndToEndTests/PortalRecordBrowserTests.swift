import Foundation
import Testing
import UNITITesting

/// The health record in a real browser and in the real shell against one `uniti-server`
/// (issue 15): what the browser adds, edits and deletes reaches the shell at its `sync`, and
/// the other way round; the audiogram page shows the module's picture.
@Suite("Portal health record in a browser", .serialized, .timeLimit(.minutes(15)))
struct PortalRecordBrowserTests {
    /// The shell of this build: `uniti` with `tn ` before each record command, or the
    /// standalone `tinnitus-navigator` with bare commands.
    static let program = Builds.isIntegrated ? "uniti" : "tinnitus-navigator"
    static let prefix = Builds.isIntegrated ? "tn " : ""

    @Test("added in the browser, seen in the shell after sync; deleted in the shell, gone from the page; edited in the browser, arrives edited; the audiogram is drawn")
    func recordJourney() throws {
        let server = try StudyServer()
        try PortalJourney.run("journey_record.py", server: server, program: Self.program, environment: ["TN_PREFIX": Self.prefix],
                              expecting: ["browser add journey", "audiogram picture journey", "shell sync journey",
                                          "shell delete journey", "browser edit journey", "shell add journey"])
    }
}
