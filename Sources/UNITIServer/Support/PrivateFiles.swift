import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files the server writes hold personal data and live codes: the database (and SQLite's
/// `-wal` and `-shm` beside it), the mail spool (activation and reset codes) and exports. They
/// are made readable by their owner only, files 0600 in folders 0700, whatever the umask (under
/// the usual 022 they were readable by every local user, issue 27): each is created with its
/// mode and the mode is set again, since a umask can only take bits away. Existing files and
/// folders keep their mode; ``warnings(_:)`` names those others can read, for the log at start.
enum PrivateFiles {
    static let fileMode: mode_t = 0o600
    static let folderMode: mode_t = 0o700

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates `path` and its missing parents as folders 0700; folders that exist stay as they are.
    static func createFolder(_ path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw Failure(description: "\(path) is a file, not a folder") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createFolder(parent) }
        guard mkdir(path, folderMode) == 0 || errno == EEXIST else { throw failure("Cannot create the folder", path) }
        _ = chmod(path, folderMode)
    }

    /// Creates the file `path` (0600), failing when it exists, and opens it for writing.
    static func create(_ path: String) throws -> FileHandle {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw failure("Cannot write", path) }
        _ = fchmod(descriptor, fileMode)
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Writes `data` to the new file `path` (0600).
    static func write(_ data: Data, toNew path: String) throws {
        let handle = try create(path)
        defer { try? handle.close() }
        try handle.write(contentsOf: data)
    }

    /// Creates `path` as an empty file (0600) unless it exists. An empty file is an empty SQLite
    /// database, and SQLite makes its `-wal` and `-shm` with the mode of the database, so creating
    /// it first is what keeps all three private.
    static func createIfMissing(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if descriptor < 0 {
            guard errno == EEXIST else { throw failure("Cannot create", path) }
            return
        }
        _ = fchmod(descriptor, fileMode)
        close(descriptor)
    }

    /// `DIR/.NAME.PID.partial`: where a file that replaces `destination` is written until it is
    /// complete (an export, a backup). Beside it, so the rename is atomic; hidden; one per
    /// process. A partial file left by an earlier process that died under the same id is removed.
    static func temporaryPath(beside destination: String) -> String {
        let url = URL(fileURLWithPath: destination)
        let path = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).partial").path
        unlink(path)
        return path
    }

    /// Makes the complete `temporary` private, flushes it to disk, renames it over `destination`
    /// and flushes the folder: after a crash or power cut the name holds the old file or the
    /// whole new one, never a part.
    static func moveIntoPlace(_ temporary: String, _ destination: String) throws {
        let file = open(temporary, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw failure("Cannot open", temporary) }
        // A program that wrote it (pg_dump) may have made it anew with the umask's mode.
        _ = fchmod(file, fileMode)
        fsync(file)
        close(file)
        guard rename(temporary, destination) == 0 else { throw failure("Cannot write", destination) }
        let folder = open(URL(fileURLWithPath: destination).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// One line for each of `paths` that exists and that users other than its owner may read or
    /// write, naming the file and its mode.
    static func warnings(_ paths: [String]) -> [String] {
        paths.compactMap { path in
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & 0o077 != 0 else { return nil }
            let mode = String(status.st_mode & 0o777, radix: 8)
            return "\(path) can be read by other users of this machine (mode \(mode)); it holds personal data: chmod 600 it"
        }
    }

    private static func failure(_ what: String, _ path: String) -> Failure {
        Failure(description: "\(what) \(path): \(String(cString: strerror(errno))).")
    }
}
