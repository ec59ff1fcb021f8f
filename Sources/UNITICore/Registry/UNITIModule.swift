import UNITIProtocol

/// A feature module of UNITI: the one protocol through which the host (or a standalone program)
/// loads TrackYourTinnitus, TrackYourStress, TrackYourHearing, TinnitusNavigator and
/// ShadesOfNoise.
///
/// A module is a small value that *declares* what it brings; the core does the work. The base
/// is three requirements, none with a default:
/// - ``descriptor``: id, name, program name, version;
/// - ``commands(for:)``: its command tree for a kind of program (in the integrated shell under
///   its id, `tyt fill`; standalone at top level, `fill`, often with more commands);
/// - ``migrations``: its own tables, prefixed with its id.
///
/// Everything else is a capability the module opts into by conforming to a further protocol,
/// each without defaults, so a misspelt requirement fails to compile instead of silently doing
/// nothing (as Spezi's modules opt into `@Dependency` and `@Provide`):
/// ``RecordSyncing`` (records that follow the person), ``PulledSheetKeeping`` (sheets from the
/// person's other devices), ``ReminderProviding`` and ``ReminderToneProviding``,
/// ``ServerResourceConsuming``, ``StartScreenOffering`` and ``ModuleEntering``.
///
/// Modules import `UNITICore` only, never each other; the list of modules is
/// `Modules/modules.json`.
public protocol UNITIModule: Sendable {
    var descriptor: ModuleDescriptor { get }
    /// The module's commands in a program of this kind.
    func commands(for program: ProgramKind) -> [any ShellCommand.Type]
    /// The module's append-only storage steps (an empty list for a module without tables).
    var migrations: [ModuleMigration] { get }
}

extension UNITIModule {
    /// The module's migrations, registered under its id.
    public var migrationSet: MigrationSet { MigrationSet(owner: descriptor.id.rawValue, steps: migrations) }
}
