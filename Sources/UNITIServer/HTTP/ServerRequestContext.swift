import Foundation
import Hummingbird

/// The request context of every route: Hummingbird's core storage plus the server's body limit
/// (1 MiB: a batch of a few hundred sheets fits, a runaway upload is refused with 413).
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    public var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
}

/// Limits that inputs are validated against, in one place.
public enum ServerLimits {
    public static let maximumBodyBytes = 1 << 20
    public static let maximumSheetsPerBatch = 500
    public static let maximumRecordsPerBatch = 500
    public static let maximumAnswersPerSheet = 500
    public static let maximumPageSize = 200
    public static let maximumRecordPayloadBytes = 64 * 1024
}
