import Foundation
import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage, the server's body limit
/// (1 MiB: a batch of a few hundred sheets fits, a runaway upload is refused with 413), the TCP
/// peer and the client address the throttles count (``ClientAddressMiddleware``).
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer (nil in-process, where there is no socket).
    public let remoteAddress: SocketAddress?
    /// Who sent the request: the peer, or behind a trusted proxy the address it names
    /// (``TrustedProxies``); nil without a peer, and then nothing is counted per client address.
    public var clientAddress: ClientAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
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
