import Foundation

/// What the file system holding a path can take: its free space for this user and whether it is
/// mounted read-only. Asked before answering (nothing is asked that could not be saved) and when
/// the database cannot be opened for writing (to say why).
public struct DiskSpace: Sendable, Equatable {
    public let freeBytes: UInt64
    public let isReadOnly: Bool

    /// The file system of `path`; nil when it cannot be asked.
    public init?(of path: String) {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        freeBytes = UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
        isReadOnly = stats.f_flag & UInt(ST_RDONLY) != 0
    }
}
