import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import UNITICore
import UNITITesting

/// A gpsd played by the test: accepts one client on a free loopback port and, on a thread of
/// its own, does what the script says, byte for byte and pause for pause. After the script it
/// keeps the connection open (a gpsd that hangs) until the client closes it or 10 s pass.
final class ScriptedGPSD: @unchecked Sendable {
    enum Step: Sendable {
        /// Writes the text as it is (no newline is added).
        case send(String)
        /// Waits this many seconds.
        case pause(TimeInterval)
        /// Reads what the client sends up to and including the `;` that ends a gpsd command.
        case readCommand
        /// Writes one line that never ends (64 KiB blocks of `x`) for this many bytes, or until
        /// the client closes; without a limit, until the client closes.
        case endlessLine(bytes: Int?)
        /// Closes the connection, wherever the script is.
        case close
    }

    let listener: LoopbackListener
    /// What the client sent for each ``Step/readCommand``.
    let commands = LockedValue<[String]>([])
    /// When the client closed its end; nil while it has not.
    let clientClosedAt = LockedValue<ContinuousClock.Instant?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    var endpoint: String { listener.endpoint }

    init(_ script: [Step]) throws {
        listener = try LoopbackListener()
        Thread.detachNewThread { [self] in
            run(script)
            finished.signal()
        }
    }

    /// The standard opening of a real gpsd: VERSION at once, DEVICES and WATCH after `?WATCH`.
    static let greeting: [Step] = [
        .send(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"),
        .readCommand,
        .send(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","activated":"2026-09-22T12:00:00.000Z"}]}"# + "\n"),
        .send(#"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false}"# + "\n"),
    ]

    /// Waits until the script (and the wait for the client after it) is over.
    func waitUntilFinished() {
        finished.wait()
        finished.signal()
    }

    private func run(_ script: [Step]) {
        guard let client = listener.accept(within: 10) else { return }
        defer { Glibc.close(client) }
        for step in script {
            switch step {
            case .send(let text):
                guard Self.write(Array(text.utf8), to: client) else { return noteClosed() }
            case .pause(let seconds):
                Thread.sleep(forTimeInterval: seconds)
            case .readCommand:
                var command: [UInt8] = []
                var byte: UInt8 = 0
                while command.last != UInt8(ascii: ";") {
                    guard recv(client, &byte, 1, 0) == 1 else { return noteClosed() }
                    command.append(byte)
                }
                commands.withValue { $0.append(String(decoding: command, as: UTF8.self)) }
            case .endlessLine(let limit):
                let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
                var sent = 0
                while limit.map({ sent < $0 }) ?? true {
                    guard Self.write(block, to: client) else { return noteClosed() }
                    sent += block.count
                }
            case .close:
                return
            }
        }
        // Hang: answer nothing more, and notice when the client leaves.
        var polled = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .seconds(10)
        var sink = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            guard poll(&polled, 1, 20) > 0 else { continue }
            if sink.withUnsafeMutableBytes({ recv(client, $0.baseAddress, $0.count, 0) }) <= 0 { return noteClosed() }
        }
    }

    private func noteClosed() {
        clientClosedAt.value = .now
    }

    /// Blocking write of everything; false when the client has gone.
    private static func write(_ bytes: [UInt8], to client: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(client, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
