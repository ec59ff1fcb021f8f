/// The body of every error the study server sends: `{"error": {"code": "...", "message": "..."}}`.
///
/// `code` is stable and machine-readable (clients branch on it); `message` is one line a person can act on.
public struct APIErrorBody: Codable, Hashable, Sendable {
    public struct Detail: Codable, Hashable, Sendable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: String, message: String) {
        self.error = Detail(code: code, message: message)
    }
}
