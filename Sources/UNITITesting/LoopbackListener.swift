import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on a free port of 127.0.0.1, for a server a test plays itself (a gpsd that
/// says what the test wants) and for finding a free port to give a real server.
///
/// Its sockets are close-on-exec, so a program another test starts at the same moment never
/// inherits them and keeps a connection open that the test closed.
public final class LoopbackListener: @unchecked Sendable {
    /// The port the system chose.
    public let port: UInt16
    private let descriptor: Int32

    public init() throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listening >= 0 else { throw Self.failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listening, generic, length) == 0 && listen(listening, 16) == 0
                    && getsockname(listening, generic, &length) == 0
            }
        }
        guard bound else {
            let error = Self.failure("bind")
            Glibc.close(listening)
            throw error
        }
        descriptor = listening
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// `127.0.0.1:PORT`, as `UNITI_GPSD` and `GPSDClient` take it.
    public var endpoint: String { "127.0.0.1:\(port)" }

    /// The socket of the next client (blocking, close-on-exec), waiting at most `seconds`; nil
    /// when none came. The caller closes it.
    public func accept(within seconds: TimeInterval) -> Int32? {
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&polled, 1, Int32(seconds * 1000)) > 0 else { return nil }
        let client = Glibc.accept(descriptor, nil, nil)
        guard client >= 0 else { return nil }
        // Swift's Glibc has no accept4; GPSFake closes inherited descriptors in any case.
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return client
    }

    private static func failure(_ call: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(errno)))"])
    }
}
