import Foundation

/// Reads one position from gpsd over its JSON protocol (gpsd's `?WATCH` over TCP): the location
/// sensor of Track Your Stress (thesis, FR14/FR15), read while a questionnaire is answered.
///
/// ```swift
/// let fix = try GPSDClient(endpoint: "localhost:2947", timeout: 5).readFix()
/// ```
///
/// The client asks gpsd to report (`?WATCH={"enable":true,"json":true};`), skips every report
/// that is not a position (VERSION, DEVICES, WATCH, SKY, TPV without a fix) and anything that
/// is not gpsd's JSON at all, and takes the first TPV with a 2D or 3D fix. Everything, from
/// connecting to the last byte, happens within one deadline, ``timeout``: whatever gpsd does
/// (hang, send garbage, split lines, send a line that never ends, close in the middle) costs at
/// most that long and ends in one of three one-line errors, never a crash: no gpsd at the
/// endpoint, no fix within the timeout, or gpsd closed the connection. The deadline is kept on
/// the monotonic clock, not the injected wall clock: it bounds real waiting on a socket, and a
/// test's fixed clock would never let it pass.
///
/// Topics:
/// - where: ``endpoint`` (`UNITI_GPSD`, else `localhost:2947`; see ``configured(environment:timeout:)``);
/// - reading: ``readFix()``, ``checkReachable(within:)`` (for the `sensors` listing).
public struct GPSDClient: Hashable, Sendable {
    /// The variable that points UNITI at a gpsd other than the local one, as `host:port`.
    public static let environmentVariable = "UNITI_GPSD"
    /// gpsd on this machine at its registered port.
    public static let localEndpoint = "localhost:2947"
    /// Long enough for a receiver that already has a fix to report it (gpsd reports once a
    /// second), short enough not to hold up saving a sheet.
    public static let defaultTimeout: TimeInterval = 5

    /// `host:port` of gpsd (`[address]:port` for IPv6); checked when it is used, so a mistyped
    /// `UNITI_GPSD` is one line when the location is read, not a program that will not start.
    public let endpoint: String
    /// Seconds from the start of a reading to giving up.
    public let timeout: TimeInterval

    public init(endpoint: String = GPSDClient.localEndpoint, timeout: TimeInterval = GPSDClient.defaultTimeout) {
        self.endpoint = endpoint
        self.timeout = Self.bounded(timeout)
    }

    /// A time a deadline can be built from: not negative, not NaN, not endless.
    private static func bounded(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isFinite ? min(max(seconds, 0), 86_400) : defaultTimeout
    }

    /// The gpsd of `UNITI_GPSD` when it is set (and not empty), else the local one.
    public static func configured(environment value: String? = ProgramEnvironment.value(environmentVariable),
                                  timeout: TimeInterval = defaultTimeout) -> GPSDClient {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            return GPSDClient(timeout: timeout)
        }
        return GPSDClient(endpoint: value, timeout: timeout)
    }

    /// The first 2D or 3D fix gpsd reports within ``timeout``; throws a one-line `UNITIError`
    /// when there is none.
    public func readFix() throws -> GPSDFix {
        // Without a stop request the reading ends with a fix or an error, never with nil.
        guard let fix = try readFix(isStopped: { false }) else { throw noFix }
        return fix
    }

    /// As ``readFix()``, ending early with nil once `isStopped` says so (looked at every 50 ms).
    func readFix(isStopped: @escaping () -> Bool) throws(UNITIError) -> GPSDFix? {
        let parsed = try parsedEndpoint()
        let deadline = ContinuousClock.now + .seconds(timeout)
        do throws(GPSDConnection.Failure) {
            let connection = try GPSDConnection(to: parsed, deadline: deadline, isStopped: isStopped)
            try connection.send(Array(#"?WATCH={"enable":true,"json":true};"#.utf8) + [UInt8(ascii: "\n")])
            while true {
                if let fix = GPSDFix(report: try connection.nextLine()) { return fix }
            }
        } catch .stopped {
            return nil
        } catch {
            throw self.error(for: error, endpoint: parsed, seconds: timeout)
        }
    }

    /// Throws the one-line reason when nothing accepts a connection at ``endpoint`` within
    /// `seconds`; returns once something does (it does not wait for a fix).
    public func checkReachable(within seconds: TimeInterval = 1) throws {
        let parsed = try parsedEndpoint()
        do throws(GPSDConnection.Failure) {
            _ = try GPSDConnection(to: parsed, deadline: .now + .seconds(Self.bounded(seconds)), isStopped: { false })
        } catch {
            throw self.error(for: error, endpoint: parsed, seconds: seconds)
        }
    }

    private func parsedEndpoint() throws(UNITIError) -> GPSDEndpoint {
        guard let parsed = GPSDEndpoint(endpoint) else {
            throw UNITIError(L("core.sensors.location.badEndpoint", ["value": endpoint, "variable": Self.environmentVariable]))
        }
        return parsed
    }

    private var noFix: UNITIError {
        UNITIError(L("core.sensors.location.noFix", ["endpoint": endpoint, "seconds": Self.format(seconds: timeout)]))
    }

    private func error(for failure: GPSDConnection.Failure, endpoint: GPSDEndpoint, seconds: TimeInterval) -> UNITIError {
        let arguments = ["endpoint": endpoint.description, "seconds": Self.format(seconds: seconds),
                         "variable": Self.environmentVariable]
        switch failure {
        case .unreachable(let reason):
            return UNITIError(L("core.sensors.location.noGPSD", arguments.merging(["reason": reason]) { $1 }))
        case .connectTimedOut:
            let reason = L("core.sensors.location.noAnswer", arguments)
            return UNITIError(L("core.sensors.location.noGPSD", arguments.merging(["reason": reason]) { $1 }))
        case .timedOut, .stopped:
            return UNITIError(L("core.sensors.location.noFix", arguments))
        case .closed:
            return UNITIError(L("core.sensors.location.closed", arguments))
        }
    }

    /// `5`, `0.5`: whole seconds without a fraction.
    static func format(seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : CurrentLanguage.value.number(seconds, fractionDigits: 1)
    }
}
