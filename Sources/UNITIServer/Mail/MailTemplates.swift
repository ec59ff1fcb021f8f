/// The texts of the mails the server sends, in the account's language (English and German).
/// The server does not link the client's string tables, so its few texts live here.
///
/// A `link` (the portal page with the code filled in, when `serve --public-url` is set) comes
/// before the code; the code stays, for the shell and for mail readers that break links.
enum MailTemplates {
    static func activation(token: String, username: String, language: String, link: String? = nil) -> (subject: String, body: String) {
        if language == "de" {
            let web = link.map { "Im Browser: \($0)\n" } ?? ""
            return ("UNITI: Konto aktivieren",
                    "Hallo \(username),\n\nbitte bestätige dein UNITI-Konto mit diesem Code:\n\n    \(token)\n\n\(web)In der Shell: activate \(token)\nDer Code gilt 48 Stunden und nur einmal.\n")
        }
        let web = link.map { "In the browser: \($0)\n" } ?? ""
        return ("UNITI: activate your account",
                "Hello \(username),\n\nplease confirm your UNITI account with this code:\n\n    \(token)\n\n\(web)In the shell: activate \(token)\nThe code is valid for 48 hours and can be used once.\n")
    }

    static func passwordReset(token: String, username: String, language: String, link: String? = nil) -> (subject: String, body: String) {
        if language == "de" {
            let web = link.map { "Im Browser: \($0)\n" } ?? ""
            return ("UNITI: Passwort zurücksetzen",
                    "Hallo \(username),\n\nmit diesem Code kannst du ein neues Passwort setzen:\n\n    \(token)\n\n\(web)Der Code gilt 48 Stunden und nur einmal. Hast du nichts angefordert, ignoriere diese Nachricht.\n")
        }
        let web = link.map { "In the browser: \($0)\n" } ?? ""
        return ("UNITI: reset your password",
                "Hello \(username),\n\nuse this code to set a new password:\n\n    \(token)\n\n\(web)The code is valid for 48 hours and can be used once. If you did not ask for it, ignore this message.\n")
    }
}
