import Foundation

/// A day of the week, numbered as ISO 8601 does (Monday = 1 ... Sunday = 7), because the
/// theses' planners all start their week on Monday.
public enum Weekday: Int, Sendable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The English three-letter name (`mon`), the form used in settings and JSON.
    public var description: String { Self.shortNames[rawValue - 1] }

    /// The day's name in the current language (string table key `reminders.weekday.mon`, ...).
    public var localizedName: String { L("reminders.weekday.\(description)") }

    /// Parses a weekday name in any of the languages, long or short, in any case and with or
    /// without accents: `mon`, `monday`, `mo`, `montag`, `lun`, `lunes`, `δευ`, `Δευτέρα`,
    /// `maandag`, … (a short form that would mean two days, such as Dutch `ma` and Spanish `ma`
    /// for martes, is left out: such a day is written out).
    public init(parsing text: String) throws {
        let key = Self.folded(text.trimmingCharacters(in: .whitespaces))
        guard let day = Self.names[key] else {
            throw UNITIError(L("reminders.error.weekday", ["text": text]))
        }
        self = day
    }

    private static let shortNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    private static let names: [String: Weekday] = {
        let spellings: [Weekday: [String]] = [
            .monday: ["mon", "monday", "mo", "montag", "lun", "lunes", "δευ", "δευτέρα", "maandag"],
            .tuesday: ["tue", "tues", "tuesday", "di", "dienstag", "mar", "martes", "τρι", "τρίτη", "dinsdag"],
            .wednesday: ["wed", "wednesday", "mi", "mittwoch", "mié", "miércoles", "τετ", "τετάρτη", "wo", "woensdag"],
            .thursday: ["thu", "thur", "thurs", "thursday", "do", "donnerstag", "jue", "jueves", "πεμ", "πέμπτη", "donderdag"],
            .friday: ["fri", "friday", "fr", "freitag", "vie", "viernes", "παρ", "παρασκευή", "vr", "vrijdag"],
            .saturday: ["sat", "saturday", "sa", "samstag", "sonnabend", "sáb", "sábado", "σαβ", "σάββατο", "za", "zaterdag"],
            .sunday: ["sun", "sunday", "so", "sonntag", "dom", "domingo", "κυρ", "κυριακή", "zo", "zondag"],
        ]
        var table: [String: Weekday] = [:]
        for (day, words) in spellings {
            for word in words { table[folded(word)] = day }
        }
        return table
    }()

    /// Lower case without accents (`miércoles` → `miercoles`, `Τετάρτη` → `τεταρτη`), so either
    /// spelling is understood.
    private static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }
}
