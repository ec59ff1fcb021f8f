import Foundation
import GRDB
import UNITIProtocol

/// Whether an answer sheet has reached the study server, and when not, why: what `tys sheets`,
/// `tn completed` and their `--json` show beside each sheet (Tinnitus Navigator thesis FR8).
public enum SheetUpload: Sendable, Equatable {
    case uploaded
    /// Still on this device, to be sent; ``Wait`` says what it waits for.
    case waiting(Wait)
    /// Kept in the outbox, refused by the server for this reason (in the person's language
    /// where the server gave a code).
    case refused(String)
    /// A bundled study's sheet: it stays on this device.
    case deviceOnly
    /// The person left its study asking the server to delete their answers: gone from the
    /// server, the copy here stays theirs.
    case erasedFromServer

    /// What a sheet that has not reached the server waits for.
    public enum Wait: String, Sendable, CaseIterable {
        /// Nothing but the next sync (a shell waiting at its prompt sends it by itself).
        case nextSync
        /// The last try found no server (offline, or the server failing): it is tried again.
        case offline
        /// Nobody is logged in on this device: it goes once someone logs in.
        case loggedOut
        /// The study asks for agreement to a new consent version first (`study consent ID`).
        case consent
        /// The server does not take the questionnaire from this person yet (a study not joined).
        case questionnaireUnavailable
    }

    /// Reads a row of `core_answer_sheets` joined with its outbox entry: `erasedFromServerAt`,
    /// `outboxState`, `lastError`, `lastErrorCode`, `attempts` and `serverKnows` (whether a
    /// server's study holds its questionnaire).
    init(_ row: Row, loggedIn: Bool) {
        if row["erasedFromServerAt"] as Date? != nil {
            self = .erasedFromServer
            return
        }
        let code = row["lastErrorCode"] as String?
        switch row["outboxState"] as String? {
        // Not queued: uploaded if a server knows its questionnaire, else it never left (a
        // bundled questionnaire no study has taken over).
        case nil:
            self = row["serverKnows"] as Bool ? .uploaded : .deviceOnly
        case Outbox.State.rejected.rawValue?:
            self = .refused(code.map { APIError.worded(code: $0, serverText: row["lastError"] ?? "") } ?? row["lastError"] ?? "")
        case Outbox.State.waiting.rawValue?:
            self = .waiting(code == AnswerSheetBatchResult.consentRequiredCode ? .consent : .questionnaireUnavailable)
        default:
            if !loggedIn {
                self = .waiting(.loggedOut)
            } else {
                self = .waiting((row["attempts"] as Int? ?? 0) > 0 ? .offline : .nextSync)
            }
        }
    }

    /// A stable word for `--json`: `uploaded`, `waiting`, `refused`, `deviceOnly`, `erasedFromServer`.
    public var state: String {
        switch self {
        case .uploaded: return "uploaded"
        case .waiting: return "waiting"
        case .refused: return "refused"
        case .deviceOnly: return "deviceOnly"
        case .erasedFromServer: return "erasedFromServer"
        }
    }

    /// For `--json`: what a waiting sheet waits for (``Wait``'s raw value).
    public var waitingFor: String? {
        if case .waiting(let wait) = self { return wait.rawValue }
        return nil
    }

    /// For `--json`: why the server refused the sheet.
    public var refusedBecause: String? {
        if case .refused(let reason) = self { return reason }
        return nil
    }

    /// The state in a few words, for a table's column (``text`` says it whole).
    public var shortText: String { words(short: true) }

    /// The state in the person's words.
    public var text: String { words(short: false) }

    private func words(short: Bool) -> String {
        switch self {
        case .uploaded: return L("studyq.upload.uploaded")
        case .waiting(let wait): return L((short ? "studyq.upload.short." : "studyq.upload.waiting.") + wait.rawValue)
        case .refused(let reason): return short ? L("studyq.upload.short.refused") : L("studyq.upload.refused", ["reason": reason])
        case .deviceOnly: return L(short ? "studyq.upload.short.deviceOnly" : "studyq.upload.deviceOnly")
        case .erasedFromServer: return L(short ? "studyq.upload.short.erasedFromServer" : "studyq.upload.erasedFromServer")
        }
    }
}
