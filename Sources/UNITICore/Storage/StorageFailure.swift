import Foundation
import GRDB

/// What a failed write or read of the data directory means for the person, in one line of our
/// own words: the disk is full, the folder is read-only, another program holds the database,
/// the file is damaged. SQLite's own text ("database or disk is full - while executing COMMIT
/// TRANSACTION") says nothing a person can act on.
public enum StorageFailure {
    public enum Kind: Equatable, Sendable {
        case diskFull, readOnly, busy, ioError, damaged, cannotOpen
    }

    /// The kind of a storage error; nil for anything else.
    public static func kind(of error: Error) -> Kind? {
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_FULL: return .diskFull
        case .SQLITE_READONLY: return .readOnly
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy
        case .SQLITE_IOERR: return .ioError
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .damaged
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: return .cannotOpen
        default: return nil
        }
    }

    /// One line for the person about a storage error, naming the data directory; nil when
    /// `error` is not one.
    public static func message(for error: Error, directory: String) -> String? {
        guard let kind = kind(of: error) else { return nil }
        let key: String
        switch kind {
        case .diskFull: key = "core.storage.diskFull"
        case .readOnly: key = "core.storage.readOnly"
        case .busy: key = "core.storage.busy"
        case .ioError: key = "core.storage.ioError"
        case .damaged: key = "core.storage.damaged"
        case .cannotOpen: key = "core.storage.cannotOpen"
        }
        return L(key, ["path": directory])
    }

    /// The reason of any error, shortest readable form (for messages that name their context).
    static func describe(_ error: Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
