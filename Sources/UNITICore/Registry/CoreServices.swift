import Foundation
import UNITIProtocol

/// The core services every module may use, created once per process by the launcher (or by a
/// test harness), and handed to commands through ``ModuleContext``.
///
/// Topics:
/// - where data lives: ``dataDirectory``, ``database``, ``settings``, ``studies``;
/// - talking to the person: ``console``, ``input``, ``prefersJSON``;
/// - what tests decide: ``clock``, ``random``, ``transport``, ``microphone``, ``gpsd``;
/// - the program: ``program``, ``sessions`` (login and server address, `--server` first).
public final class CoreServices: Sendable {
    public let dataDirectory: DataDirectory
    public let database: AppDatabase
    public let settings: SettingsStore
    public let studies: StudyCatalog
    public let console: Console
    public let input: any LineInput
    public let clock: any WallClock
    /// Where chance comes from (reminder times, retry jitter); seeded in tests.
    public let random: any RandomSource
    /// The kind of program running, decided once at launch.
    public let program: ProgramKind
    /// Set by the global `--json` option: listing commands print JSON.
    public let prefersJSON: Bool
    /// `--server URL` for this run, overriding the stored address.
    public let serverOverride: String?
    /// How HTTP is sent (libcurl, loaded on the first request).
    public let transport: any HTTPTransport
    /// Where the microphone sensor hears from (the ALSA capture device; a recording or
    /// synthetic sound in tests). Opened only while a questionnaire that asks for the level is
    /// answered with the person's permission.
    public let microphone: SoundInput
    /// Where the location sensor reads from (gpsd at `UNITI_GPSD`, else on this machine; a
    /// gpsfake or a scripted server in tests). Connected to only while a questionnaire that
    /// asks for the location is answered with the person's permission.
    public let gpsd: GPSDClient
    /// Set by a module command that ends the program after it (a standalone program closes
    /// after a saved check-in, Track Your Tinnitus thesis 3); the shell stops when it sees it.
    public let endOfProgramRequested = LockedValue(false)
    /// Set by the program that runs the modules (the shell, which knows them all): one sync now,
    /// in the foreground, when a session exists; nil without one. For a module that shows what
    /// the server made of a sheet just answered (Track Your Hearing's rewards).
    public let foregroundSync = LockedValue<(@Sendable () -> SyncReport?)?>(nil)

    public init(dataDirectory: DataDirectory, database: AppDatabase, console: Console, input: any LineInput,
                clock: any WallClock, random: any RandomSource, program: ProgramKind, prefersJSON: Bool = false,
                serverOverride: String? = nil, transport: any HTTPTransport = CurlTransport(),
                microphone: SoundInput = .captureDevice(), gpsd: GPSDClient = .configured()) {
        self.dataDirectory = dataDirectory
        self.database = database
        self.settings = SettingsStore(database: database)
        self.studies = StudyCatalog(database: database)
        self.console = console
        self.input = input
        self.clock = clock
        self.random = random
        self.program = program
        self.prefersJSON = prefersJSON
        self.serverOverride = serverOverride
        self.transport = transport
        self.microphone = microphone
        self.gpsd = gpsd
    }

    /// The login and the server address (`--server` for this run first, then the stored one).
    public var sessions: SessionStore {
        SessionStore(settings: settings, serverOverride: serverOverride, dataDirectory: dataDirectory, clock: clock)
    }

    /// A client for the configured server that speaks for the current session (renewing its
    /// token as needed); throws a one-line error when no server is configured.
    public func apiClient() throws -> APIClient {
        try sessions.client(transport: transport)
    }

    /// The durable queue of changes for the server.
    public var outbox: Outbox { Outbox(database: database) }
}
