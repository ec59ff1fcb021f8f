import Foundation
import UNITICore

/// How the ambient noise level is shown (thesis FR6): the offset that turns the measured dBFS
/// into an approximate dB SPL for this microphone.
///
/// Whether the level is measured at all is the person's microphone permission, kept by the
/// core (``SensorPermissions``); `tyt settings noise on|off` sets it, and the module's own
/// switch of earlier versions (`tyt.noise.enabled`) becomes that permission once (the
/// storage step `v3-noise-permission` in ``TinnitusMigrations``).
public struct NoiseSettings: Sendable, Equatable {
    /// dB added to a dBFS level to estimate dB SPL; nil shows plain dBFS.
    public var calibrationOffset: Double?

    static let calibrationKey = "noise.calibration"

    public init(calibrationOffset: Double? = nil) {
        self.calibrationOffset = calibrationOffset
    }

    public static func load(_ context: ModuleContext) throws -> NoiseSettings {
        NoiseSettings(calibrationOffset: try context.moduleSetting(calibrationKey).flatMap(Double.init))
    }

    public func save(_ context: ModuleContext) throws {
        try context.setModuleSetting(Self.calibrationKey, to: calibrationOffset.map { String($0) })
    }

    /// A stored level as the person reads it, with its unit: `-23.4 dBFS` or `≈ 66.6 dB SPL`.
    public func describe(_ dbfs: Double) -> String {
        if let calibrationOffset {
            return L("tyt.noise.spl", ["level": CurrentLanguage.value.number(dbfs + calibrationOffset, fractionDigits: 1)])
        }
        return L("tyt.noise.dbfs", ["level": CurrentLanguage.value.number(dbfs, fractionDigits: 1)])
    }

}
