/// The mails the server sends, in the account's language: the `mail.*` keys of the string tables
/// (`Localization/Strings/<language>/server-mail.json`), looked up as the portal's words are
/// (``PortalText/text(_:_:_:)``: English where a language lacks a key).
///
/// A `link` (the portal page with the code filled in, when `serve --public-url` is set) comes
/// before the code; the code stays, for the shell and for mail readers that break links. A code
/// stands on a line of its own, indented, and only there (tests and people find it by that).
enum MailTemplates {
    static func activation(token: String, username: String, language: String, link: String? = nil) -> (subject: String, body: String) {
        mail("mail.activation", language, ["username": username, "code": token], link: link)
    }

    static func passwordReset(token: String, username: String, language: String, link: String? = nil) -> (subject: String, body: String) {
        mail("mail.reset", language, ["username": username, "code": token], link: link)
    }

    /// To an address that already has an account, after someone registered with it: the answer to
    /// the registration could not say so (it would tell who has an account), so its owner hears
    /// of it here. No code: nothing was made.
    static func registrationAttempt(username: String, language: String, link: String? = nil) -> (subject: String, body: String) {
        mail("mail.registrationAttempt", language, ["username": username], link: link)
    }

    private static func mail(_ key: String, _ language: String, _ values: [String: String], link: String?) -> (subject: String, body: String) {
        var values = values
        values["web"] = link.map { PortalText.text("mail.link", language, ["link": $0]) } ?? ""
        return (PortalText.text("\(key).subject", language), PortalText.text("\(key).body", language, values))
    }
}
