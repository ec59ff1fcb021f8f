import Foundation
import Testing
import UNITILocalization
import UNITIProtocol
@testable import UNITIServer

/// German has one form of address in UNITI: "Sie". No German text (the shell and its modules,
/// the mails, the portal, the staff console) says "du": no informal pronoun, no verb form of the
/// informal "du" and none of the informal imperatives the tables would use.
@Suite("German form of address", .timeLimit(.minutes(2)))
struct GermanFormOfAddressTests {
    /// Informal words: pronouns and possessives of "du" and "ihr" (the plural), verbs conjugated
    /// for "du", and informal imperatives ("Gib", "Melde dich"). Lower-case "ihr" is left out: it
    /// is also "her" and "their", as in "ihr Passwort" of a study.
    static let informal = [
        "du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner", "deines",
        "euch", "euer", "eure", "euren", "eurem", "eurer", "eures",
        "bist", "hast", "kannst", "musst", "warst", "willst", "sollst", "wirst", "möchtest", "brauchst", "bekommst", "findest",
        "wähle", "aktiviere", "lade", "versuche", "prüfe", "mach", "mache", "kürze", "schicke", "gib", "melde", "wende",
        "fordere", "setze", "tritt", "bestätige", "ignoriere", "warte", "öffne", "klicke", "tippe", "lies", "nimm", "sende",
        "gehe", "geh", "trage", "füge", "lösche", "ändere", "speichere", "starte", "beantworte", "lege", "wiederhole",
    ]

    /// Texts of these keys use a listed word in another sense.
    static let allowed: Set<String> = []

    /// The informal words in `text`, matched as whole words (not inside `--data-dir` or "Dirigent").
    static func informalWords(in text: String) -> [String] {
        let words = informal + informal.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let regex = try! NSRegularExpression(pattern: #"(?<![\p{L}\p{N}_-])("# + words.joined(separator: "|") + #")(?![\p{L}\p{N}_-])"#)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test("no German text of the shell, a mail, the portal or the console addresses the reader informally")
    func germanTextsSaySie() {
        let german = StringTables.table(for: "de")
        var checked = 0, informal: [String] = []
        for (key, text) in german where !Self.allowed.contains(key) {
            checked += 1
            let words = Self.informalWords(in: text)
            if !words.isEmpty { informal.append("\(key): \(words.joined(separator: ", ")) in \"\(text)\"") }
        }
        #expect(checked > 1500, "suspiciously few texts: \(checked)")
        #expect(informal == [])
    }

    @Test("the check finds the informal forms and lets the formal ones and look-alikes pass")
    func checkFindsInformalForms() {
        #expect(Self.informalWords(in: "Hallo anna,\n\nbitte bestätige dein UNITI-Konto") == ["bestätige", "dein"])
        #expect(Self.informalWords(in: "Du bist abgemeldet. Melde dich an.") == ["Du", "bist", "Melde", "dich"])
        #expect(Self.informalWords(in: "Bitte bestätigen Sie Ihr Konto; wählen Sie mit --data-dir einen Dirigenten.") == [])
        #expect(Self.informalWords(in: "Die Studie und ihr Passwort") == [])
    }

    @Test("the activation mail a German registration gets says Sie")
    func activationMailSaysSie() async throws {
        let server = try TestServer()
        try await server.run { client in
            let registered = try await client.json(.post, "/api/v1/account/register",
                                                   body: RegisterRequest(username: "jana", email: "jana@example.org", password: "correct horse", language: "de"))
            #expect(registered.status == .created)
            await server.environment.mail.idle()
            let mail = try #require(try server.spool.messages().first.map { try String(contentsOf: $0.url, encoding: .utf8) })
            #expect(mail.contains("bestätigen Sie Ihr UNITI-Konto"))
            #expect(Self.informalWords(in: mail) == [])
        }
    }
}
