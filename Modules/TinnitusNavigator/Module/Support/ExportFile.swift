import Foundation
import UNITICore

/// Writing a file the person asked for (an audiogram's SVG, the doctor's report), with one
/// line naming the file and the reason when it cannot be written.
enum ExportFile {
    static func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            let reason = (error as NSError).localizedDescription
            throw UNITIError(L("tn.report.error.write", ["path": path, "reason": reason]))
        }
    }
}
