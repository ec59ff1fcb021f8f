/// The texts of the mails the server sends, in the account's language (English and German).
/// The server does not link the client's string tables, so its few texts live here.
enum MailTemplates {
    static func activation(token: String, username: String, language: String) -> (subject: String, body: String) {
        if language == "de" {
            return ("UNITI: Konto aktivieren",
                    "Hallo \(username),\n\nbitte bestätige dein UNITI-Konto mit diesem Code:\n\n    \(token)\n\nIn der Shell: activate \(token)\nDer Code gilt 48 Stunden und nur einmal.\n")
        }
        return ("UNITI: activate your account",
                "Hello \(username),\n\nplease confirm your UNITI account with this code:\n\n    \(token)\n\nIn the shell: activate \(token)\nThe code is valid for 48 hours and can be used once.\n")
    }

    static func passwordReset(token: String, username: String, language: String) -> (subject: String, body: String) {
        if language == "de" {
            return ("UNITI: Passwort zurücksetzen",
                    "Hallo \(username),\n\nmit diesem Code kannst du ein neues Passwort setzen:\n\n    \(token)\n\nDer Code gilt 48 Stunden und nur einmal. Hast du nichts angefordert, ignoriere diese Nachricht.\n")
        }
        return ("UNITI: reset your password",
                "Hello \(username),\n\nuse this code to set a new password:\n\n    \(token)\n\nThe code is valid for 48 hours and can be used once. If you did not ask for it, ignore this message.\n")
    }
}
