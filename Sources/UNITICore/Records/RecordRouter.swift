import Foundation
import GRDB
import UNITIProtocol

/// Gives each record pulled from the server to its type, by owner and kind, and merges it.
///
/// The core's own kinds (questionnaire drafts and forms, ``coreRecordTypes``) belong to every
/// owner, the shell and modules alike; the others to the module that declares them
/// (``RecordSyncing``). A record this program cannot apply (its module is not part of this
/// program, as in every standalone program, or a newer version of the module wrote a kind or a
/// payload this one cannot read) is parked (``ParkedRecords``) rather than dropped, and applied
/// when a program that can opens the data directory.
public struct RecordRouter: Sendable {
    /// Record kinds of the core, valid for every owner.
    public static let coreRecordTypes: [any SyncedRecord.Type] = [QuestionnaireDraft.self, QuestionnaireFormRecord.self]

    private let moduleTypes: [ModuleID: [String: any SyncedRecord.Type]]
    private static let coreTypes: [String: any SyncedRecord.Type] = Dictionary(
        uniqueKeysWithValues: coreRecordTypes.map { ($0.recordKind, $0) })

    /// Refuses a module's record kind that is not a valid kind, is one of the core's, or is
    /// declared twice, naming the module (the shared test harness builds a router for every
    /// module, so a wrong declaration fails its tests).
    public init(modules: [any UNITIModule]) throws {
        let coreKinds = Set(Self.coreTypes.keys)
        var types: [ModuleID: [String: any SyncedRecord.Type]] = [:]
        for module in modules {
            var kinds: [String: any SyncedRecord.Type] = [:]
            for type in (module as? any RecordSyncing)?.syncedRecordTypes ?? [] {
                let kind = type.recordKind
                let name = module.descriptor.name
                guard RecordAddress.isValidKind(Substring(kind)) else {
                    throw UNITIError("module \(name) declares the record kind '\(kind)': use 1–32 lowercase letters, digits or '-'")
                }
                if coreKinds.contains(kind) {
                    throw UNITIError("module \(name) declares the record kind '\(kind)', which is one of the core's")
                }
                if kinds[kind] != nil {
                    throw UNITIError("module \(name) declares the record kind '\(kind)' twice")
                }
                kinds[kind] = type
            }
            types[module.descriptor.id] = kinds
        }
        moduleTypes = types
    }

    /// The owners whose records this program applies: the shell and its modules.
    public var owners: Set<ModuleID> { Set(moduleTypes.keys).union([.shell]) }

    /// The owners whose records a program of these modules applies, without asking the modules
    /// anything (for the check at start whether parked records wait).
    public static func owners(of modules: [any UNITIModule]) -> Set<ModuleID> {
        Set(modules.map(\.descriptor.id)).union([.shell])
    }

    /// The type of records at `address`, or nil when this program has none for it.
    public func type(for address: RecordAddress) -> (any SyncedRecord.Type)? {
        if let core = Self.coreTypes[address.kind] { return core }
        return moduleTypes[address.owner]?[address.kind]
    }

    /// What became of one pulled record.
    public enum Outcome: Equatable, Sendable {
        case applied
        /// Kept aside with the reason; applied by a program that can.
        case parked(String)
    }

    /// Merges a pulled record into its type's storage, or parks it; in the caller's transaction.
    @discardableResult
    public func apply(_ record: ModuleRecord, in db: Database) throws -> Outcome {
        guard let address = RecordAddress(owner: record.moduleId, clientID: record.clientId),
              let stamp = OffsetTimestamp(parsing: record.updatedAt) else {
            return try park(record, reason: "unreadable address or time", in: db)
        }
        guard let type = type(for: address) else {
            return try park(record, reason: "no module here keeps \(address.owner) \(address.kind) records", in: db)
        }
        do {
            try merge(record, as: type, address: address, updatedAt: RecordTime.truncated(stamp.date), in: db)
        } catch let error as DecodingError {
            return try park(record, reason: "payload unreadable by this version: \(error)", in: db)
        }
        return .applied
    }

    private func merge<Record: SyncedRecord>(_ record: ModuleRecord, as type: Record.Type, address: RecordAddress,
                                             updatedAt: Date, in db: Database) throws {
        var value: Record?
        if !record.deleted {
            guard let payload = record.payload else {
                throw DecodingError.valueNotFound(Record.self, .init(codingPath: [], debugDescription: "no payload"))
            }
            value = try RecordCoding.decode(Record.self, from: payload)
        }
        try Record.merge(PulledRecordChange(owner: address.owner, id: address.id, updatedAt: updatedAt, record: value), in: db)
    }

    private func park(_ record: ModuleRecord, reason: String, in db: Database) throws -> Outcome {
        try ParkedRecords.park(record, reason: reason, in: db)
        return .parked(reason)
    }
}
