import Foundation
import HTTPTypes
import Testing
import UNITILocalization
import UNITIProtocol
@testable import UNITIServer

/// Every error the server gives has a stable code from ``APIErrorCode``, documented in the
/// OpenAPI document, and every code a participant can meet is worded by the portal in each
/// language; a code the portal does not know shows the server's line, never nothing.
///
/// Codes are found where the sources make errors (`APIError(status, "code", …)`,
/// `APIError.invalid("code", …)`, `.badRequest("code", …)`); a code given as an expression is
/// listed in ``expressionCodes`` with every code it can be, so a new one cannot slip past unseen.
@Suite("API error codes", .timeLimit(.minutes(5)))
struct APIErrorCodeTests {
    static let root = repositoryRoot

    /// Each code argument that is not a plain literal, by file, with the codes it can become.
    static let expressionCodes: [String: [String]] = [
        "APIError.swift code": [],  // the helpers pass their argument on
        "SheetValidation.swift code": ["unknown_item", "invalid_answer"],
        "SheetValidation.swift AnswerSheetBatchResult.questionnaireUnavailableCode": ["questionnaire_unavailable"],
        "SheetValidation.swift AnswerSheetBatchResult.consentRequiredCode": ["consent_required"],
        "SheetValidation.swift deactivatedCode": ["questionnaire_deactivated"],
        #"AccountRules.swift "invalid_\(field)""#: ["invalid_first_name", "invalid_last_name", "invalid_name"],
        #"APIErrorMiddleware.swift APIErrorCode.httpStatus(error.status.code)"#: [],  // http_<status>, documented as such
    ]

    /// The Swift files of the server and of the modules' server parts.
    static func serverSources() throws -> [URL] {
        var folders = [root.appendingPathComponent("Sources/UNITIServer")]
        for module in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Modules").path) {
            folders.append(root.appendingPathComponent("Modules/\(module)/Server"))
        }
        var files: [URL] = []
        for folder in folders {
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" { files.append(url) }
        }
        return files
    }

    /// The code argument of every error made in `source`: literals, and other expressions as written.
    static func codeArguments(in source: String) -> (literals: Set<String>, expressions: Set<String>) {
        var literals = Set<String>(), expressions = Set<String>()
        // The call, then which argument is the code.
        let calls: [(pattern: String, index: Int)] = [
            (#"\bAPIError\("#, 1), (#"\bAPIError\.(?:invalid|badRequest)\("#, 0), (#"(?<![\w.])\.(?:invalid|badRequest)\((?=\s*")"#, 0),
        ]
        for call in calls {
            let regex = try! NSRegularExpression(pattern: call.pattern)
            for match in regex.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                let start = Range(match.range, in: source)!.upperBound
                let arguments = Self.arguments(source[start...])
                guard arguments.count > call.index else { continue }
                let argument = arguments[call.index]
                if argument.hasPrefix("\""), argument.hasSuffix("\""), !argument.contains("\\("), argument.count > 2 {
                    literals.insert(String(argument.dropFirst().dropLast()))
                } else {
                    expressions.insert(argument)
                }
            }
        }
        return (literals, expressions)
    }

    /// The top-level arguments of a call whose `(` has just been read, up to its `)`.
    static func arguments(_ text: Substring) -> [String] {
        var arguments: [String] = [], current = "", depth = 0, inString = false, escaped = false
        for character in text {
            if inString {
                current.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true; current.append(character)
            case "(", "[", "{": depth += 1; current.append(character)
            case ")", "]", "}":
                if depth == 0 {
                    arguments.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                    return arguments
                }
                depth -= 1; current.append(character)
            case "," where depth == 0:
                arguments.append(current.trimmingCharacters(in: .whitespacesAndNewlines)); current = ""
            default: current.append(character)
            }
        }
        return arguments
    }

    /// Every code the server's sources can give, checked against the listed expressions.
    static func codesInSources() throws -> (codes: Set<String>, unlisted: [String]) {
        var codes = Set<String>(), unlisted: [String] = []
        for file in try serverSources() {
            let found = codeArguments(in: try String(contentsOf: file, encoding: .utf8))
            codes.formUnion(found.literals)
            for expression in found.expressions {
                let key = "\(file.lastPathComponent) \(expression)"
                if let expansions = expressionCodes[key] { codes.formUnion(expansions) } else { unlisted.append(key) }
            }
        }
        return (codes, unlisted)
    }

    @Test("every code the server's sources give is in the catalogue, and every catalogued code is given somewhere")
    func sourcesMatchTheCatalogue() throws {
        let (codes, unlisted) = try Self.codesInSources()
        #expect(unlisted == [], "list these code expressions in expressionCodes with every code they can be")
        #expect(codes.count > 60, "the scan found suspiciously few codes: \(codes.count)")
        let catalogue = Set(APIErrorCode.allCases.map(\.rawValue))
        #expect(codes.subtracting(catalogue).sorted() == [], "codes the server gives that APIErrorCode does not list")
        #expect(catalogue.subtracting(codes).sorted() == [], "codes APIErrorCode lists that the server never gives")
    }

    @Test("the scan reads codes the way the sources write them")
    func scanFindsCodes() {
        let found = Self.codeArguments(in: #"""
        throw APIError(.conflict, "study_closed", "Study '\(id)' is not running.")
        throw APIError(HTTPResponse.Status(code: 429), "too_many", "wait", headers: ["Retry-After": "\(wait)"])
        throw APIError.invalid("invalid_\(field)", "The \(field) is at most 100 characters.")
        return .badRequest(
            "invalid_cursor", "The cursor is not one this server gave out.")
        APIError(.conflict, AnswerSheetBatchResult.consentRequiredCode, "…")
        let problem = Problem.invalid(position)
        """#)
        #expect(found.literals == ["study_closed", "too_many", "invalid_cursor"])
        #expect(found.expressions == [#""invalid_\(field)""#, "AnswerSheetBatchResult.consentRequiredCode"])
    }

    /// The `ErrorCode` schema of the OpenAPI document: its enum, its staff list and its `x-when`.
    static func documentedCodes() throws -> (codes: [String], staff: [String], when: [String: String]) {
        let document = try String(contentsOf: root.appendingPathComponent("Sources/UNITIServer/Resources/openapi.yaml"), encoding: .utf8)
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "    ErrorCode:"), "the OpenAPI document has no ErrorCode schema")
        var codes: [String] = [], staff: [String] = [], when: [String: String] = [:], section = ""
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("      ") else { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if !line.hasPrefix("        ") { section = text; continue }
            switch section {
            case "enum:": codes.append(String(text.dropFirst(2)))
            case "x-staff:": staff.append(String(text.dropFirst(2)))
            case "x-when:":
                let parts = text.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                when[parts[0]] = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : ""
            default: break
            }
        }
        return (codes, staff, when)
    }

    @Test("the OpenAPI document lists exactly the catalogue's codes, says when each is given, and which only staff meet")
    func documentListsTheCodes() throws {
        let (codes, staff, when) = try Self.documentedCodes()
        #expect(codes == APIErrorCode.allCases.map(\.rawValue))
        #expect(staff == APIErrorCode.allCases.filter { $0.audience == .staff }.map(\.rawValue))
        #expect(Set(when.keys) == Set(codes))
        for code in codes { #expect(when[code].map { $0.count > 20 } == true, "\(code) has no 'when'") }
    }

    @Test("every code a participant can meet has the portal's words in English and German")
    func portalWordsEveryParticipantCode() {
        let english = StringTables.table(for: "en"), german = StringTables.table(for: "de")
        for code in APIErrorCode.allCases where code.audience == .participant {
            let key = "portal.error.\(code.rawValue)"
            #expect(english[key] != nil, "\(key) missing in English")
            #expect(german[key] != nil, "\(key) missing in German")
            #expect(english[key] != german[key], "\(key) is not translated")
        }
    }

    @Test("the portal words a code from its tables in the visitor's language; an unknown code shows the server's line, an empty one the page's title")
    func portalExplainsByCode() throws {
        let known = APIError(.forbidden, "wrong_study_password", "The password for study 'x' is wrong.")
        #expect(PortalRoutes.explain(known, "en")?.1 == "This study password is wrong.")
        #expect(PortalRoutes.explain(known, "de")?.1 == "Dieses Studienpasswort ist falsch.")
        let throttled = APIError(.tooManyRequests, "too_many_study_attempts", "…", headers: ["Retry-After": "60"])
        #expect(PortalRoutes.explain(throttled, "de")?.1.contains("60 Sekunden") == true)
        let unknown = APIError(.conflict, "a_code_of_tomorrow", "The server's own line.")
        #expect(PortalRoutes.explain(unknown, "en")?.1 == "The server's own line.")
        #expect(PortalRoutes.explain(unknown, "de")?.1 == "The server's own line.")
        let silent = APIError(.conflict, "a_code_of_tomorrow", "")
        #expect(PortalRoutes.explain(silent, "de")?.1 == "Etwas ist schiefgegangen")
    }

    @Test("a questionnaire of a study not joined is refused on the portal in the visitor's language, by its code")
    func portalWordsASheetRefusal() throws {
        let unavailable = APIError(.conflict, "questionnaire_unavailable", "Questionnaire 'x' version 1 is not available to you.")
        #expect(PortalRoutes.explain(unavailable, "en")?.1.contains("join it under Studies") == true)
        #expect(PortalRoutes.explain(unavailable, "de")?.1.contains("treten Sie ihr unter Studien bei") == true)
    }
}
