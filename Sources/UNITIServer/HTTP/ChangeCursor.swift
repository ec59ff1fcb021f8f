/// The opaque cursor of incremental pulls (`GET /records`, `GET /sheets/changes`): a server
/// sequence number, wrapped so that clients keep it as given instead of building one.
enum ChangeCursor {
    static func encode(_ sequence: Int64) -> String {
        "c" + String(sequence, radix: 36)
    }

    /// The sequence number, or 400 `invalid_cursor` for text this server did not give out.
    static func decode(_ text: String) throws -> Int64 {
        guard text.first == "c", text.count <= 16, let value = Int64(text.dropFirst(), radix: 36), value >= 0 else {
            throw APIError.badRequest("invalid_cursor", "The cursor is not one this server gave out; pull without a cursor to start over.")
        }
        return value
    }
}
