import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to gpsd that never waits past its deadline: a non-blocking socket, every
/// wait a `poll` of at most 50 ms, after which the deadline and the stop request are looked at
/// again. A gpsd that hangs, trickles, or never ends a line costs the deadline and no more.
///
/// Lines are bytes up to a newline, at most ``longestLine`` long; a longer one is dropped up to
/// its end (gpsd's own reports are a few hundred bytes; SKY with many satellites a few KiB), so
/// memory stays bounded whatever arrives.
final class GPSDConnection {
    /// Why the connection ended without what was asked of it.
    enum Failure: Error, Equatable {
        /// Nothing could be connected to; the reason as the system says it.
        case unreachable(reason: String)
        /// Connected, but the deadline passed.
        case timedOut
        /// gpsd closed (or reset) the connection.
        case closed
        /// The caller asked to stop.
        case stopped
        /// Nothing answered the connection attempt before the deadline.
        case connectTimedOut
    }

    /// 64 KiB: a line longer than this is not gpsd's and is dropped.
    static let longestLine = 64 * 1024
    /// How long one wait lasts at most before the deadline and the stop request are checked.
    private static let pollSliceMilliseconds = 50

    private let descriptor: Int32
    private let deadline: ContinuousClock.Instant
    private let isStopped: () -> Bool
    private var received: [UInt8] = []
    /// Set while the rest of an over-long line is being thrown away.
    private var droppingLine = false

    /// Connects to `endpoint` (each address the name resolves to, in turn) before `deadline`.
    /// Resolving the name is the one step `poll` cannot bound; for `localhost` and addresses it
    /// needs no network.
    init(to endpoint: GPSDEndpoint, deadline: ContinuousClock.Instant, isStopped: @escaping () -> Bool) throws(Failure) {
        self.deadline = deadline
        self.isStopped = isStopped
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var addresses: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &addresses)
        guard resolved == 0, let first = addresses else {
            throw .unreachable(reason: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(first) }
        var failure = Failure.unreachable(reason: String(cString: strerror(ECONNREFUSED)))
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let socketDescriptor = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                                          | Int32(SOCK_CLOEXEC.rawValue), address.pointee.ai_protocol)
            guard socketDescriptor >= 0 else {
                failure = .unreachable(reason: String(cString: strerror(errno)))
                continue
            }
            do {
                try Self.connect(socketDescriptor, to: address.pointee, deadline: deadline, isStopped: isStopped)
                descriptor = socketDescriptor
                return
            } catch {
                close(socketDescriptor)
                failure = error
                if error == .stopped || error == .connectTimedOut { break }
            }
        }
        throw failure
    }

    deinit {
        close(descriptor)
    }

    private static func connect(_ descriptor: Int32, to address: addrinfo, deadline: ContinuousClock.Instant,
                                isStopped: () -> Bool) throws(Failure) {
        if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return }
        guard errno == EINPROGRESS || errno == EINTR else {
            throw .unreachable(reason: String(cString: strerror(errno)))
        }
        do {
            _ = try wait(descriptor, for: Int16(POLLOUT), deadline: deadline, isStopped: isStopped)
        } catch .timedOut {
            throw .connectTimedOut
        }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
            throw .unreachable(reason: String(cString: strerror(errno)))
        }
        if error != 0 { throw .unreachable(reason: String(cString: strerror(error))) }
    }

    /// Waits until `events` can happen on `descriptor` (or it was hung up), in short slices.
    private static func wait(_ descriptor: Int32, for events: Int16, deadline: ContinuousClock.Instant,
                             isStopped: () -> Bool) throws(Failure) -> Int16 {
        while true {
            if isStopped() { throw .stopped }
            let left = deadline - .now
            guard left > .zero else { throw .timedOut }
            let milliseconds = min(Int(left.components.seconds) * 1000 + Int(left.components.attoseconds / 1_000_000_000_000_000) + 1,
                                   pollSliceMilliseconds)
            var polled = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&polled, 1, Int32(milliseconds))
            if ready > 0 { return polled.revents }
            if ready < 0, errno != EINTR { throw .closed }
        }
    }

    /// Sends all of `bytes`; never raises SIGPIPE when gpsd has gone.
    func send(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                _ = try Self.wait(descriptor, for: Int16(POLLOUT), deadline: deadline, isStopped: isStopped)
            } else {
                throw .closed
            }
        }
    }

    /// The next whole line without its newline (and without a carriage return before it).
    /// Throws ``Failure/closed`` when gpsd closes the connection, also in the middle of a line.
    func nextLine() throws(Failure) -> ArraySlice<UInt8> {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                var line = received[..<newline]
                received.removeSubrange(...newline)
                if droppingLine {
                    droppingLine = false
                    continue
                }
                guard line.count <= Self.longestLine else { continue }
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                return line
            }
            if received.count > Self.longestLine {
                droppingLine = true
                received.removeAll(keepingCapacity: true)
            }
            _ = try Self.wait(descriptor, for: Int16(POLLIN), deadline: deadline, isStopped: isStopped)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                throw .closed
            } else if errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                throw .closed
            }
        }
    }
}
