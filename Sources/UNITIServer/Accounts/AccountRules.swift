import Foundation
import UNITIText

/// What a valid username, e-mail address, password and language look like.
enum AccountRules {
    static let minimumPasswordLength = 8
    /// Bcrypt reads at most 72 bytes; a longer password would silently be cut, so it is refused.
    static let maximumPasswordBytes = 72
    static let languages: Set<String> = Set(Language.allCases.map(\.rawValue))

    static func validateUsername(_ name: String) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-"))
        guard (3...32).contains(name.count), name.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }),
              name.contains(where: { !$0.isNumber }), !name.contains("@") else {
            throw APIError.invalid("invalid_username", "A username has 3 to 32 letters, digits, '.', '_' or '-', and is not only digits.")
        }
    }

    static func validateEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let valid = email.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[0].count <= 64
            && parts[1].contains(".") && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !parts[1].contains("..")
            && email.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 32 && $0.value < 127 }
            && !email.contains { "()<>,;:\\\"[]".contains($0) }
        guard valid else {
            throw APIError.invalid("invalid_email", "Give an e-mail address like name@example.org.")
        }
    }

    static func validatePassword(_ password: String) throws {
        guard password.count >= minimumPasswordLength else {
            throw APIError.invalid("weak_password", "A password needs at least \(minimumPasswordLength) characters.")
        }
        guard password.utf8.count <= maximumPasswordBytes else {
            throw APIError.invalid("password_too_long", "A password may have at most \(maximumPasswordBytes) bytes.")
        }
    }

    static func validateLanguage(_ language: String) throws {
        guard languages.contains(language) else {
            throw APIError.invalid("invalid_language", "Language must be one of: \(languages.sorted().joined(separator: ", ")).")
        }
    }

    static func validateName(_ name: String, field: String) throws {
        guard name.count <= 100, !name.contains(where: { $0.isNewline }) else {
            throw APIError.invalid("invalid_\(field)", "The \(field) is at most 100 characters on one line.")
        }
    }
}
