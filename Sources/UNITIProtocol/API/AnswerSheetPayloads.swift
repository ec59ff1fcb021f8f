/// Payloads of the answer-sheet routes under `/api/v1/sheets`. A sheet crosses the wire in the
/// core format (`AnswerSheet`); its client-made `id` makes uploads idempotent.

/// `POST /api/v1/sheets`: a batch of sheets.
public struct AnswerSheetBatch: Codable, Hashable, Sendable {
    public var sheets: [AnswerSheet]
    public init(sheets: [AnswerSheet]) { self.sheets = sheets }
}

/// What became of each sheet of a batch, in the order sent.
public struct AnswerSheetBatchResult: Codable, Hashable, Sendable {
    /// The error code (with 409) of a batch holding a sheet whose questionnaire the caller cannot
    /// answer yet: unknown to the server or owned by a study not joined. The sheet is not wrong,
    /// it is early; a client keeps it and sends it again after a join.
    public static let questionnaireUnavailableCode = APIErrorCode.questionnaireUnavailable.rawValue
    /// The error code (with 409) of a batch holding a sheet for a study whose current consent
    /// version the caller has not agreed to. Like an early sheet, a client keeps it waiting and
    /// sends it again once the person agreed.
    public static let consentRequiredCode = APIErrorCode.consentRequired.rawValue

    public enum Outcome: String, Codable, Hashable, Sendable {
        /// Stored now.
        case stored
        /// Stored before under the same id; nothing changed.
        case duplicate
    }

    public struct Entry: Codable, Hashable, Sendable {
        public var id: String
        public var outcome: Outcome
        public var receivedAt: String
        public init(id: String, outcome: Outcome, receivedAt: String) {
            self.id = id
            self.outcome = outcome
            self.receivedAt = receivedAt
        }
    }

    public var results: [Entry]
    /// Given when the upload asked with its device's `GET /sheets/changes` cursor
    /// (`POST /sheets?cursor=…`) and the sheets stored now are all of the person's sheets after
    /// it: the cursor past them. A device that keeps it does not download its own sheets again
    /// (they are stored locally, in the transaction that queued them); with any other sheet after
    /// its cursor (another device's) there is none, and the device pulls as before.
    public var cursor: String?
    public init(results: [Entry], cursor: String? = nil) {
        self.results = results
        self.cursor = cursor
    }
}

/// A stored sheet as its owner reads it back: the sheet as sent, the study it counts for and
/// when the server received it.
public struct StoredAnswerSheet: Codable, Hashable, Sendable {
    public var sheet: AnswerSheet
    public var studyId: String
    public var receivedAt: String

    public init(sheet: AnswerSheet, studyId: String, receivedAt: String) {
        self.sheet = sheet
        self.studyId = studyId
        self.receivedAt = receivedAt
    }
}

/// `GET /api/v1/sheets?page=N&perPage=M`: the caller's own sheets, newest first.
public struct AnswerSheetPage: Codable, Hashable, Sendable {
    public var sheets: [StoredAnswerSheet]
    public var page: Int
    public var perPage: Int
    public var total: Int
    public init(sheets: [StoredAnswerSheet], page: Int, perPage: Int, total: Int) {
        self.sheets = sheets
        self.page = page
        self.perPage = perPage
        self.total = total
    }
}

/// `GET /api/v1/sheets/changes?cursor=C&limit=N`: the caller's own sheets stored after the
/// cursor, oldest first (in the order the server stored them, whichever device sent them).
/// Keep `cursor` for the next pull; `more` says another page is waiting.
public struct AnswerSheetChanges: Codable, Hashable, Sendable {
    public var sheets: [StoredAnswerSheet]
    public var cursor: String
    public var more: Bool
    public init(sheets: [StoredAnswerSheet], cursor: String, more: Bool) {
        self.sheets = sheets
        self.cursor = cursor
        self.more = more
    }
}
