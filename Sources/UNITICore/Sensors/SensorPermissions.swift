import GRDB

/// The person's answer to "may UNITI read this sensor while you answer?".
public enum SensorPermission: String, CaseIterable, Sendable, Codable {
    case allowed
    case refused
}

/// The person's permission per sensor, kept in the core settings as `sensors.<kind>`
/// (`sensors.microphone` = `allowed` or `refused`). A sensor never asked about has no
/// permission and is not read: nothing about the person's surroundings is taken unless they
/// said yes, and they can say no again at any time (`sensors refuse microphone`).
public struct SensorPermissions: Sendable {
    let settings: SettingsStore

    public init(settings: SettingsStore) {
        self.settings = settings
    }

    /// The person's answer for `kind`; nil when they were never asked.
    public func permission(for kind: SensorKind) throws -> SensorPermission? {
        try settings.string(Self.key(kind)).flatMap(SensorPermission.init(rawValue:))
    }

    /// Whether `kind` may be read.
    public func isAllowed(_ kind: SensorKind) throws -> Bool {
        try permission(for: kind) == .allowed
    }

    /// Records the person's answer (nil forgets it, as if never asked).
    public func set(_ permission: SensorPermission?, for kind: SensorKind) throws {
        try settings.set(Self.key(kind), to: permission?.rawValue)
    }

    /// Records the person's answer inside the caller's transaction (a migration that carries a
    /// module's older switch over).
    public static func set(_ permission: SensorPermission?, for kind: SensorKind, in db: Database) throws {
        try SettingsStore.write(db, key(kind), permission?.rawValue)
    }

    static func key(_ kind: SensorKind) -> String { "sensors.\(kind.rawValue)" }
}
