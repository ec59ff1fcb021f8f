import Foundation
import GRDB
import UNITIProtocol

/// A feature module of UNITI: the one protocol through which the host (or a standalone program)
/// loads TrackYourTinnitus, TrackYourStress, TrackYourHearing, TinnitusNavigator and
/// ShadesOfNoise.
///
/// A module is a small value that *declares* what it brings; the core does the work:
/// - ``descriptor``: id, name, program name, version;
/// - ``commands``: its command tree (in the integrated shell under its id, `tyt fill`;
///   standalone at top level, `fill`);
/// - ``migrations``: its own tables, prefixed with its id;
/// - hooks into shared services: ``didEnter(_:)`` when the person enters the module (e.g. a
///   due questionnaire opens), and the contributions of later services (reminders, sync,
///   questionnaires), each with an empty default.
///
/// Modules import `UNITICore` only, never each other; the list of available modules lives in one
/// place, the program's `main.swift`.
public protocol UNITIModule: Sendable {
    var descriptor: ModuleDescriptor { get }
    var commands: [any ShellCommand.Type] { get }
    var migrations: [ModuleMigration] { get }

    /// Called when the person enters the module (`use tyt`, or starting the standalone program).
    func didEnter(_ context: ModuleContext) throws

    /// The module's reminder rules and how to tell answered periods (see ``ReminderSource``).
    /// The core plans and delivers them; the module keeps the rules in its own settings
    /// (``ReminderRuleStore``). Asked whenever reminders are planned, so it should be quick.
    func reminderSource(_ context: ModuleContext) throws -> ReminderSource

    /// Applies records of this module pulled from the server (written on this or another
    /// device), inside the sync's transaction. Records carry the module's own payload; a
    /// `deleted` record is a tombstone.
    func applyPulledRecords(_ records: [ModuleRecord], in db: Database) throws

    /// The sound of one of the module's reminder tones (the `tone` of its reminder rules), or
    /// nil to let the terminal bell ring. Asked when a reminder falls due.
    func reminderTone(named name: String) -> ReminderTone?

    /// Names of resources the study server may hold newer versions of (`sounds` for the sound
    /// catalogue). Sync pulls each from `resources/<id>/<name>` with its ETag and hands new
    /// content to ``acceptServerResource(named:data:in:)``.
    var serverResources: [String] { get }

    /// Checks and keeps a resource pulled from the server, inside the sync's transaction. A
    /// `UNITIError` says why the content cannot be used; the module then keeps what it had.
    func acceptServerResource(named name: String, data: Data, in db: Database) throws

    /// Whether the module's standalone program opens with the start screen (log in, register,
    /// forgot password, or continue as guest) when nobody is logged in.
    var offersGuestStart: Bool { get }
}

extension UNITIModule {
    public var migrations: [ModuleMigration] { [] }
    public func didEnter(_ context: ModuleContext) throws {}
    public func reminderSource(_ context: ModuleContext) throws -> ReminderSource { .none }

    public func applyPulledRecords(_ records: [ModuleRecord], in db: Database) throws {}
    public func reminderTone(named name: String) -> ReminderTone? { nil }
    public var serverResources: [String] { [] }
    public func acceptServerResource(named name: String, data: Data, in db: Database) throws {}
    public var offersGuestStart: Bool { false }

    /// The module's migrations, registered under its id.
    public var migrationSet: MigrationSet { MigrationSet(owner: descriptor.id, steps: migrations) }
}
