import Foundation

/// An advisory lock on a file of the data directory (`flock`), held by one process at a time and
/// released by the kernel when the process ends, however it ends (a crash or `kill -9` included).
///
/// UNITI uses these where two programs on one data directory must take turns: migrating a new
/// or older database, answering the same questionnaire, syncing. The lock file never holds data;
/// it names the process holding it, so the other one can say who is busy. (A lock on the database
/// file itself would be unsafe: closing any descriptor of that file drops SQLite's own locks.)
public final class FileLock: @unchecked Sendable {
    public let path: String
    private var descriptor: Int32 = -1

    public init(path: String) {
        self.path = path
    }

    deinit { release() }

    /// Takes the lock if no other process holds it; false when one does.
    public func tryAcquire() throws -> Bool {
        try acquire(blocking: false)
    }

    /// Takes the lock, waiting for the process that holds it.
    public func acquire() throws {
        _ = try acquire(blocking: true)
    }

    /// Takes the lock, waiting at most `timeout` seconds; false when it stayed taken.
    public func acquire(timeout: TimeInterval) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try tryAcquire() { return true }
            if Date() >= deadline { return false }
            usleep(20_000)
        }
    }

    private func acquire(blocking: Bool) throws -> Bool {
        if descriptor >= 0 { return true }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw UNITIError(L("core.lock.cannotOpen", ["path": path, "reason": String(cString: strerror(errno))]))
        }
        var status: Int32
        repeat {
            status = flock(fd, blocking ? LOCK_EX : LOCK_EX | LOCK_NB)
        } while status != 0 && errno == EINTR
        guard status == 0 else {
            let reason = errno
            close(fd)
            if reason == EWOULDBLOCK { return false }
            throw UNITIError(L("core.lock.cannotOpen", ["path": path, "reason": String(cString: strerror(reason))]))
        }
        descriptor = fd
        // Say who holds it (for the other process's message); best effort, the lock is what counts.
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        return true
    }

    /// The process that last took the lock, as it wrote itself into the file (nil when unknown).
    public var holder: Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Gives the lock up (also done when the value goes away, and by the kernel at exit).
    public func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    /// Runs `body` holding the lock, waiting for it first.
    public func withLock<T>(_ body: () throws -> T) throws -> T {
        try acquire()
        defer { release() }
        return try body()
    }
}
