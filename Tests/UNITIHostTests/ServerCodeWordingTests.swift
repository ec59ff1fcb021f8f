import Foundation
import Testing
import UNITICore
import UNITILocalization

/// Every error code the study server can answer a participant's program with has the program's
/// own words in every language (`core.api.error.<code>`), so nothing the server says reaches a
/// person in the server's language. The codes are read from the server's sources; a new one
/// fails this test until it is worded here or listed below as one no participant meets.
@Suite("Server error codes worded by the program", .timeLimit(.minutes(10)))
struct ServerCodeWordingTests {
    /// Codes only staff (the console) or the machine's operator meet.
    static let staffOnly: Set<String> = [
        "disable_admin", "disable_other_studies", "disable_self", "invalid_access", "invalid_date", "invalid_dates",
        "invalid_enrolment", "invalid_name", "invalid_role", "invalid_schedules", "invalid_secret", "invalid_staff_credentials",
        "invalid_study_id", "invalid_title", "invalid_totp", "last_owner", "questionnaire_owned", "unknown_module",
        "unknown_staff", "version_exists", "weak_study_password",
    ]
    /// Codes a participant's program meets only with a fault of its own (or a newer server):
    /// shown with the server's text, which names the field, for whoever reports it.
    static let technical: Set<String> = [
        "bad_request", "body_too_large", "duplicate_sheet_id", "invalid_batch", "invalid_body", "invalid_client_id",
        "invalid_module_id", "invalid_prompt_event", "invalid_sheet", "invalid_time", "method_not_allowed",
        "missing_payload", "payload_too_large", "token_in_url",
    ]

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The codes written in the server's (and the shared protocol's) sources.
    static func serverCodes() throws -> Set<String> {
        let patterns = [#"APIError(?:\.invalid)?\(\s*(?:\.[a-zA-Z]+\s*,\s*)?"([a-z_]+)""#, #"static let \w+Code = "([a-z_]+)""#]
        var codes = Set<String>()
        for folder in ["Sources/UNITIServer", "Sources/UNITIProtocol"] {
            let walker = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                let source = try String(contentsOf: url, encoding: .utf8)
                for pattern in patterns {
                    let regex = try NSRegularExpression(pattern: pattern)
                    for match in regex.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                        if let range = Range(match.range(at: 1), in: source) { codes.insert(String(source[range])) }
                    }
                }
            }
        }
        return codes
    }

    @Test("every code a participant can meet is worded in every language; the lists name only codes the server has")
    func everyParticipantCodeIsWorded() throws {
        let codes = try Self.serverCodes()
        #expect(codes.count > 40, "the server's codes were not found: \(codes.sorted())")
        for code in codes.subtracting(Self.staffOnly).subtracting(Self.technical).sorted() {
            for language in Language.allCases {
                #expect(StringTables.text("core.api.error." + code, language: language.rawValue) != nil,
                        "core.api.error.\(code) is missing in \(language.rawValue)")
            }
        }
        #expect(Self.staffOnly.union(Self.technical).subtracting(codes).isEmpty, "listed but not in the server")
    }
}
