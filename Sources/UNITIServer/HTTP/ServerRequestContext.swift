import Foundation
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The request context of every route: Hummingbird's core storage, the server's body limit
/// (1 MiB: a batch of a few hundred sheets fits, a runaway upload is refused with 413), the TCP
/// peer, the client address the throttles count (``ClientAddressMiddleware``), the caller of
/// the authenticated API (``BearerAuthenticator``), the portal's visitor
/// (``PortalSessionMiddleware``), and the JSON coding every API route reads bodies and writes
/// payloads with (``APIRequestDecoder``, ``JSONCoding/encoder``).
///
/// The identities are optional here because middleware fills them in; each door's routes get a
/// child context instead (``APIContext``, ``PortalContext``, ``ParticipantContext``,
/// ``ConsoleContext``, ``StaffContext``, ``StudyContext``: `DoorContexts.swift` and the doors'
/// folders) whose identity is a plain value, made once the door's gate has let the request in.
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext, AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The caller, on the routes of the authenticated group; nil elsewhere.
    public var identity: AuthenticatedUser?
    /// The TCP peer (nil in-process, where there is no socket).
    public let remoteAddress: SocketAddress?
    /// Who sent the request: the peer, or behind a trusted proxy the address it names
    /// (``TrustedProxies``); nil without a peer, and then nothing is counted per client address.
    public var clientAddress: ClientAddress?
    /// Whether the request came over TLS: to this server, or to a trusted proxy in front of it
    /// that says so in `X-Forwarded-Proto` (``TrustedProxies``; from any other peer the header
    /// is ignored). The portal's and the console's cookies are `Secure` then.
    public var overTLS = false
    /// The portal's visitor (language, session, CSRF token), on the portal's pages
    /// (``PortalSessionMiddleware``); nil elsewhere.
    var portalVisit: PortalVisit?
    /// The staff console's visitor (``ConsoleVisitMiddleware``) and, below
    /// `/console/studies/{id}`, the study with the member's role there (``ConsoleStudyAccess``).
    var consoleVisit: ConsoleVisit?
    var consoleStudy: ConsoleStudy?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    public var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
    /// `request.decode(as:context:)`: the body up to ``maxUploadSize``, with a decoding error
    /// answered as 400 `invalid_body` naming the field.
    public var requestDecoder: APIRequestDecoder { APIRequestDecoder() }
    /// Payloads a handler returns: our JSON settings (sorted keys, so a body and its ETag are stable).
    public var responseEncoder: JSONEncoder { JSONCoding.encoder }
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
