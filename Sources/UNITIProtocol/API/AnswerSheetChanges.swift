/// `GET /api/v1/sheets/changes?cursor=C&limit=N`: the caller's own sheets received after the
/// cursor, oldest first. Keep `cursor` for the next pull; `more` says another page is waiting.
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
