import Foundation
import GRDB
import UNITIProtocol

/// Answers that could not be saved in the data directory (the disk is full, the folder became
/// read-only, another program held the database too long) are kept outside it, and come back as
/// drafts the next time UNITI opens the data directory and can write there. So a person never
/// loses what they answered because of the disk: they see one line saying where the answers wait,
/// and later continue the questionnaire where they stopped.
///
/// The rescue folder is on another file system than the data directory as far as the system
/// allows: `$UNITI_RESCUE_DIR`, else `$XDG_RUNTIME_DIR/uniti-rescue` (a per-user tmpfs), else
/// `/dev/shm/uniti-rescue-<uid>`; one subfolder per data directory, mode 0700, files 0600.
public struct AnswerRescue: Sendable {
    public let folder: String

    public init(dataDirectory: DataDirectory, environment: [String: String] = ProgramEnvironment.current()) {
        let base: String
        if let explicit = environment["UNITI_RESCUE_DIR"], !explicit.isEmpty {
            base = explicit
        } else if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            base = runtime + "/uniti-rescue"
        } else {
            base = "/dev/shm/uniti-rescue-\(getuid())"
        }
        folder = base + "/" + Self.key(for: dataDirectory.path)
    }

    /// What a rescue file holds.
    struct Rescued: Codable {
        var owner: ModuleID
        var draft: QuestionnaireDraft
        var keptAt: Date
    }

    /// Writes the draft to the rescue folder; returns the file's path, or nil when even that
    /// failed (the caller then says so).
    public func keep(_ draft: QuestionnaireDraft, owner: ModuleID, at date: Date) -> String? {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // A shared place such as /dev/shm: the folders must be ours alone, never someone
            // else's (or a link to one), or the answers would be readable by them.
            let base = (folder as NSString).deletingLastPathComponent
            guard Self.isPrivateFolder(base), Self.isPrivateFolder(folder) else { return nil }
            let path = folder + "/\(owner)-\(draft.sheet.id.uuidString).json"
            let data = try JSONEncoder().encode(Rescued(owner: owner, draft: draft, keptAt: date))
            guard manager.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else { return nil }
            return path
        } catch {
            return nil
        }
    }

    /// Brings rescued answers back as drafts, in one transaction per file, and removes each file
    /// once its draft is stored; returns the questionnaire ids brought back. A draft of the same
    /// sheet already stored with more answers wins; another draft of the same questionnaire is
    /// replaced (the rescued answers are the person's latest). Only a directory listing when
    /// there is nothing to bring back.
    @discardableResult
    public func restore(into database: AppDatabase) throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var restored: [String] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path),
                  let rescued = try? JSONDecoder().decode(Rescued.self, from: data) else { continue }
            let questionnaireID = rescued.draft.sheet.questionnaireID
            try database.writer.write { db in
                let stored = try QuestionnaireDraftStore.draft(owner: rescued.owner, questionnaireID: questionnaireID, in: db)
                let storedHasMore = stored.map {
                    $0.draft.sheet.id == rescued.draft.sheet.id && $0.draft.sheet.answers.count > rescued.draft.sheet.answers.count
                } ?? false
                if !storedHasMore {
                    try QuestionnaireDraftStore.save(rescued.draft, owner: rescued.owner, at: rescued.keptAt, in: db)
                }
            }
            try? FileManager.default.removeItem(atPath: path)
            restored.append(questionnaireID)
        }
        return restored
    }

    /// Whether `path` is a real folder (not a link) that belongs to this user and that nobody
    /// else may enter.
    static func isPrivateFolder(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == getuid() && (info.st_mode & 0o077) == 0
    }

    /// A short, stable name for a data directory's path (FNV-1a, 64 bits).
    static func key(for path: String) -> String {
        String(StableHash.fnv1a(path), radix: 16)
    }
}
