import Foundation
import Logging
import Synchronization

/// `serve --log-format`: the text lines swift-log's `StreamLogHandler` writes, or JSON lines for
/// a log collector (one object per line: `time`, `level`, `label`, `message`, and the metadata's
/// keys, such as a request's `request_id`, `route` and `status`).
enum LogFormat: String, CaseIterable, Sendable {
    case text, json

    /// Sends every logger of the process (the server's, the mail queue's, PostgreSQL's) to
    /// standard error in this format; once per process, as swift-log allows.
    func bootstrap() {
        switch self {
        case .text: LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        case .json: LoggingSystem.bootstrap { JSONLineLogHandler(label: $0) }
        }
    }
}

/// A swift-log handler writing one JSON object per line to standard error.
struct JSONLineLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// The time each line carries (the wall clock, injected for tests).
    let now: @Sendable () -> Date
    let write: @Sendable (Data) -> Void

    init(label: String, now: @escaping @Sendable () -> Date = Date.init, write: @escaping @Sendable (Data) -> Void = JSONLineLogHandler.standardError) {
        self.label = label
        self.now = now
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
        fields["time"] = now().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(fields) else { return }
        line.append(UInt8(ascii: "\n"))
        write(line)
    }

    /// One `write(2)` per line under a lock, so lines of concurrent requests never interleave.
    @Sendable static func standardError(_ line: Data) {
        lock.withLock { _ in FileHandle.standardError.write(line) }
    }

    private static let lock = Mutex(())
}
