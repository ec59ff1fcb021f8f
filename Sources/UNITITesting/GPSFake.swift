import Foundation
import UNITICore
#if canImport(Glibc)
import Glibc
#endif

/// A real gpsd fed by `gpsfake` from an NMEA log, on a free loopback port: the location sensor
/// read end to end, without a receiver.
///
/// ```swift
/// let gps = try GPSFake(latitude: 48.4011, longitude: 9.9876, altitude: 480)
/// let fix = try gps.client().readFix()                         // in-process
/// try Program.run("uniti", [...], environment: ["UNITI_GPSD": gps.endpoint])  // a real binary
/// ```
///
/// gpsfake replays the log in a loop (`-c` seconds between sentences) and its gpsd reads it
/// from the start (`-n`), so a client that connects at any time gets a fix within a second or
/// so. gpsfake runs as root here without further options. Both run in a process group of their
/// own, stopped together (SIGTERM, then SIGKILL) by ``stop()`` or when the value goes away.
/// Throws, never skips, when gpsfake or gpsd is not installed.
public final class GPSFake: @unchecked Sendable {
    /// Where its gpsd listens, `127.0.0.1:PORT`: for `UNITI_GPSD` or ``GPSDClient``.
    public let endpoint: String
    public let port: UInt16
    /// The NMEA log it replays.
    public let logPath: String
    private let directory: String
    private let lock = NSLock()
    private var processGroup: pid_t?

    /// What went wrong, with what to do about it.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static let installHint = "install gpsd and gpsd-clients (Scripts/bootstrap does: apt-get install gpsd gpsd-clients)"

    /// Replays a log of a receiver standing at the position (see ``NMEALog``).
    public convenience init(latitude: Double, longitude: Double, altitude: Double, cycle: TimeInterval = 0.1) throws {
        let directory = NSTemporaryDirectory() + "uniti-gpsfake-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let log = directory + "/position.nmea"
        try NMEALog.write(latitude: latitude, longitude: longitude, altitude: altitude, to: log)
        try self.init(log: log, cycle: cycle, directory: directory)
    }

    /// Replays the NMEA log at `log`, one sentence every `cycle` seconds, in a loop.
    public convenience init(log: String, cycle: TimeInterval = 0.1) throws {
        let directory = NSTemporaryDirectory() + "uniti-gpsfake-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try self.init(log: log, cycle: cycle, directory: directory)
    }

    private init(log: String, cycle: TimeInterval, directory: String) throws {
        do {
            (port, processGroup) = try Self.start(log: log, cycle: cycle, directory: directory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        self.directory = directory
        logPath = log
        endpoint = "127.0.0.1:\(port)"
    }

    deinit {
        stop()
    }

    /// A client of this gpsd.
    public func client(timeout: TimeInterval = 3) -> GPSDClient {
        GPSDClient(endpoint: endpoint, timeout: timeout)
    }

    /// Stops gpsfake and its gpsd (the whole process group) and removes the files it wrote.
    public func stop() {
        let group: pid_t? = lock.withLock {
            defer { processGroup = nil }
            return processGroup
        }
        if let group { Self.terminate(group) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts gpsfake on a free port and waits until its gpsd accepts connections.
    private static func start(log: String, cycle: TimeInterval, directory: String) throws -> (port: UInt16, group: pid_t) {
        guard let gpsfake = executable("gpsfake") else {
            throw Failure(description: "gpsfake is not installed; \(installHint)")
        }
        guard executable("gpsd") != nil else {
            throw Failure(description: "gpsd is not installed; \(installHint)")
        }
        // A port another program takes between our look and gpsd's bind costs one more try.
        var lastFailure = Failure(description: "gpsfake did not start")
        for _ in 0..<3 {
            let port = try LoopbackListener().port  // closed at once: free for gpsd
            let output = directory + "/gpsfake-\(port).out"
            // gpsd's control socket goes to TMPDIR and stays after it ends: keep it in our folder.
            let group = try spawn(gpsfake, ["-q", "-n", "-c", String(cycle), "-P", String(port), log], output: output,
                                  environment: ["TMPDIR": directory])
            if waitUntilListening(port: port, group: group) { return (port, group) }
            terminate(group)
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            lastFailure = Failure(description: "gpsfake on port \(port) did not accept connections within 10 s: \(said)")
        }
        throw lastFailure
    }

    /// SIGTERM to the group (gpsfake also stops its gpsd then), SIGKILL when that is not enough.
    private static func terminate(_ group: pid_t) {
        kill(-group, SIGTERM)
        if !reap(group, within: 3) {
            kill(-group, SIGKILL)
            _ = reap(group, within: 3)
        }
    }

    /// Whether the process ended (and was reaped) within `seconds`.
    private static func reap(_ pid: pid_t, within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        repeat {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) { return true }
            usleep(10_000)
        } while Date() < deadline
        return false
    }

    private static func waitUntilListening(port: UInt16, group: pid_t) -> Bool {
        let probe = GPSDClient(endpoint: "127.0.0.1:\(port)")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? probe.checkReachable(within: 0.2)) != nil { return true }
            var status: Int32 = 0
            if waitpid(group, &status, WNOHANG) == group { return false }  // gpsfake gave up
            usleep(50_000)
        }
        return false
    }

    /// Starts `path` with `arguments` and our environment with `environment` over it, as the
    /// leader of a new process group, its output (both streams) into `output`, no descriptor of
    /// ours inherited.
    private static func spawn(_ path: String, _ arguments: [String], output: String,
                              environment: [String: String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        return pid
    }

    /// Adds "close every descriptor from 3 on" (glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`,
    /// which Swift's Glibc module does not show), so a socket another test has open at this
    /// moment does not stay open in gpsfake after the test closed it.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// The program's path on `PATH` (and in the sbin folders, where Debian puts gpsd).
    private static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
