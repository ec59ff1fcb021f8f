import Foundation

extension QuestionnaireDefinition {
    /// Decodes a definition, turning any decoding failure into one `QuestionnaireFormatError`
    /// that says where: a line and column for malformed JSON, a JSON path for a missing or
    /// mistyped field. Never traps, whatever the bytes.
    public static func load(from data: Data) throws -> QuestionnaireDefinition {
        try JSONFormat.decode(QuestionnaireDefinition.self, from: data)
    }
}

extension AnswerSheet {
    /// Decodes a sheet with the same one-line errors as `QuestionnaireDefinition.load(from:)`.
    public static func load(from data: Data) throws -> AnswerSheet {
        try JSONFormat.decode(AnswerSheet.self, from: data)
    }
}

/// Decoding with errors a person can act on.
public enum JSONFormat {
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw QuestionnaireFormatError(describe(error, in: data))
        } catch {
            throw QuestionnaireFormatError("not valid JSON: \(error)")
        }
    }

    /// `items[3].min` from a coding path.
    public static func path(_ codingPath: [CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(top level)" : text
    }

    static func describe(_ error: DecodingError, in data: Data) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : path(context.codingPath) + "."
            return "\(parent)\(key.stringValue): required field is missing"
        case .typeMismatch(let expected, let context):
            return "\(path(context.codingPath)): expected \(typeName(expected))"
        case .valueNotFound(let expected, let context):
            return "\(path(context.codingPath)): expected \(typeName(expected)), found null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return syntaxError(in: data) ?? "not valid JSON: \(context.debugDescription)"
            }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "not readable: \(error)"
        }
    }

    /// The syntax error of `data` with its line and column. JSONDecoder does not say where
    /// the text breaks; JSONSerialization gives a character offset, turned into line:column here.
    static func syntaxError(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            guard let range = detail.range(of: "character "),
                  let offset = Int(detail[range.upperBound...].prefix { $0.isNumber })
            else { return "not valid JSON: \(detail)" }
            var line = 1, column = 1
            for byte in data.prefix(offset) {
                if byte == 10 { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            let reason = detail.components(separatedBy: " around character").first ?? detail
            return "not valid JSON at line \(line), column \(column): \(reason.lowercased())"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(name)"
        }
    }
}
