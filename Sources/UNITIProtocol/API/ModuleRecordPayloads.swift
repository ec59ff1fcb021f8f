/// Payloads of the generic per-user module record store under `/api/v1/records`: module data that
/// is not a questionnaire answer (health-record entries, listening sessions, settings that follow the user).

/// One record as the client pushes it. The newest `updatedAt` wins; `deleted` marks a tombstone.
public struct ModuleRecordUpsert: Codable, Hashable, Sendable {
    public var moduleId: String
    public var clientId: String
    public var updatedAt: String
    public var deleted: Bool?
    public var payload: JSONValue?

    public init(moduleId: String, clientId: String, updatedAt: String, deleted: Bool? = nil, payload: JSONValue? = nil) {
        self.moduleId = moduleId
        self.clientId = clientId
        self.updatedAt = updatedAt
        self.deleted = deleted
        self.payload = payload
    }
}

/// `POST /api/v1/records`.
public struct ModuleRecordBatch: Codable, Hashable, Sendable {
    public var records: [ModuleRecordUpsert]
    public init(records: [ModuleRecordUpsert]) { self.records = records }
}

/// What became of each pushed record, in the order sent.
public struct ModuleRecordBatchResult: Codable, Hashable, Sendable {
    public enum Outcome: String, Codable, Hashable, Sendable {
        /// Stored (new or newer than what the server had).
        case applied
        /// The server holds a newer (or equally new) version; it was kept.
        case stale
    }

    public struct Entry: Codable, Hashable, Sendable {
        public var moduleId: String
        public var clientId: String
        public var outcome: Outcome
        public init(moduleId: String, clientId: String, outcome: Outcome) {
            self.moduleId = moduleId
            self.clientId = clientId
            self.outcome = outcome
        }
    }

    public var results: [Entry]
    public init(results: [Entry]) { self.results = results }
}

/// A record as the server holds it; `deleted` records carry no payload.
public struct ModuleRecord: Codable, Hashable, Sendable {
    public var moduleId: String
    public var clientId: String
    public var updatedAt: String
    public var deleted: Bool
    public var payload: JSONValue?

    public init(moduleId: String, clientId: String, updatedAt: String, deleted: Bool, payload: JSONValue?) {
        self.moduleId = moduleId
        self.clientId = clientId
        self.updatedAt = updatedAt
        self.deleted = deleted
        self.payload = payload
    }
}

/// `GET /api/v1/records?cursor=C&module=M&limit=N`: changes after the cursor, oldest first.
/// Keep `cursor` for the next pull; `more` says another page is waiting.
public struct ModuleRecordPage: Codable, Hashable, Sendable {
    public var records: [ModuleRecord]
    public var cursor: String
    public var more: Bool
    public init(records: [ModuleRecord], cursor: String, more: Bool) {
        self.records = records
        self.cursor = cursor
        self.more = more
    }
}
