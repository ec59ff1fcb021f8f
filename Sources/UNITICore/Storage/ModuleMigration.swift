import GRDB

/// One named, append-only step of a module's storage schema.
///
/// Steps are registered under their owner's id (`core`, `tyt`, ...) as `owner.name`, run once
/// in order, and never edited after they ship: a change is a new step. A step may only create
/// tables whose names start with its owner's prefix (`tyt_`), so one module never touches
/// another module's tables; `AppDatabase` checks this when the step runs.
public struct ModuleMigration: Sendable {
    public let name: String
    public let migrate: @Sendable (Database) throws -> Void

    public init(_ name: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.migrate = migrate
    }
}

/// The migrations of one owner (the core or a module).
public struct MigrationSet: Sendable {
    public let owner: String
    public let steps: [ModuleMigration]

    public init(owner: String, steps: [ModuleMigration]) {
        self.owner = owner
        self.steps = steps
    }

    /// The table-name prefix the owner's steps must use.
    public var tablePrefix: String { "\(owner)_" }
}
