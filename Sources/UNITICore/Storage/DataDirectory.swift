import Foundation

/// The folder that holds one person's data: the database, the line-editing history, drafts.
///
/// Chosen by `--data-dir`, else `$UNITI_HOME`, else `$XDG_DATA_HOME/uniti`, else
/// `~/.local/share/uniti`. Created on first use, readable by its owner only.
public struct DataDirectory: Sendable, Hashable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public static func resolve(option: String?, environment: [String: String]) -> DataDirectory {
        if let option, !option.isEmpty { return DataDirectory(path: absolute(option)) }
        if let home = environment["UNITI_HOME"], !home.isEmpty { return DataDirectory(path: absolute(home)) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return DataDirectory(path: absolute(xdg) + "/uniti")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return DataDirectory(path: home + "/.local/share/uniti")
    }

    /// Creates the folder (mode 0700) if it does not exist yet.
    public func create() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw UNITIError(L("core.dataDir.notDirectory", ["path": path]))
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw UNITIError(L("core.dataDir.cannotCreate", ["path": path, "reason": error.localizedDescription]))
        }
    }

    /// Deletes the folder and everything in it (after `account delete`, when the person says so).
    /// The program ends afterwards: its open database now has no file behind it.
    public func erase() throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw UNITIError(L("core.dataDir.cannotErase", ["path": path, "reason": error.localizedDescription]))
        }
    }

    public var databasePath: String { path + "/" + AppDatabase.fileName }
    public var historyPath: String { path + "/history" }

    /// A lock (``FileLock``) in the directory's `locks/` folder, by name; the folder is made on
    /// first use. Names are reduced to letters, digits, `.`, `-` and `_`.
    public func lock(_ name: String) -> FileLock {
        let folder = path + "/locks"
        mkdir(folder, 0o700)  // EEXIST is fine; any other failure shows when the lock is opened
        let safe = String(name.unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "._-".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
        })
        return FileLock(path: folder + "/" + safe + ".lock")
    }

    private static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded }
        return FileManager.default.currentDirectoryPath + "/" + expanded
    }
}
