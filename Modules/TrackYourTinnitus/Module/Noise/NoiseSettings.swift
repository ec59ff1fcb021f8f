import Foundation
import UNITICore

/// Whether the ambient noise level is measured while answering (thesis FR6) and the offset that
/// turns the measured dBFS into an approximate dB SPL for this microphone.
public struct NoiseSettings: Sendable, Equatable {
    public var isEnabled: Bool
    /// dB added to a dBFS level to estimate dB SPL; nil shows plain dBFS.
    public var calibrationOffset: Double?

    static let enabledKey = "noise.enabled"
    static let calibrationKey = "noise.calibration"

    public init(isEnabled: Bool = false, calibrationOffset: Double? = nil) {
        self.isEnabled = isEnabled
        self.calibrationOffset = calibrationOffset
    }

    public static func load(_ context: ModuleContext) throws -> NoiseSettings {
        NoiseSettings(isEnabled: try context.moduleSetting(enabledKey) == "on",
                      calibrationOffset: try context.moduleSetting(calibrationKey).flatMap(Double.init))
    }

    public func save(_ context: ModuleContext) throws {
        try context.setModuleSetting(Self.enabledKey, to: isEnabled ? "on" : "off")
        try context.setModuleSetting(Self.calibrationKey, to: calibrationOffset.map { String($0) })
    }

    /// A stored level as the person reads it, with its unit: `-23.4 dBFS` or `≈ 66.6 dB SPL`.
    public func describe(_ dbfs: Double) -> String {
        if let calibrationOffset {
            return L("tyt.noise.spl", ["level": String(format: "%.1f", dbfs + calibrationOffset)])
        }
        return L("tyt.noise.dbfs", ["level": String(format: "%.1f", dbfs)])
    }
}
