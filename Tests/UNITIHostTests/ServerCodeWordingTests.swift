import Foundation
import Testing
import UNITICore
import UNITILocalization
import UNITIProtocol

/// Every error code the study server can answer a participant's program with has the program's
/// own words in every language (`core.api.error.<code>`), so nothing the server says reaches a
/// person in the server's language. The codes are the server's catalogue (``APIErrorCode``); a
/// new participant code fails this test until it is worded here or listed as technical.
@Suite("Server error codes worded by the program", .timeLimit(.minutes(10)))
struct ServerCodeWordingTests {
    /// Codes a participant's program meets only with a fault of its own (or a newer server):
    /// shown with the server's text, which names the field, for whoever reports it.
    static let technical: Set<APIErrorCode> = [
        .badRequest, .bodyTooLarge, .duplicateSheetId, .invalidAnswer, .invalidBatch, .invalidBody, .invalidClientId,
        .invalidCursor, .invalidModuleId, .invalidPromptEvent, .invalidQuery, .invalidSheet, .invalidTime,
        .invalidUpdatedSince, .methodNotAllowed, .missingPayload, .payloadTooLarge, .tokenInURL, .unknownItem,
    ]

    @Test("every code a participant can meet is worded in every language, besides the technical ones")
    func everyParticipantCodeIsWorded() {
        let worded = APIErrorCode.allCases.filter { $0.audience == .participant && !Self.technical.contains($0) }
        #expect(worded.count > 30)
        for code in worded {
            for language in Language.allCases {
                #expect(StringTables.text("core.api.error." + code.rawValue, language: language.rawValue) != nil,
                        "core.api.error.\(code.rawValue) is missing in \(language.rawValue)")
            }
        }
        #expect(Self.technical.allSatisfy { $0.audience == .participant })
    }
}
