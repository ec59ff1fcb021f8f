/// The languages kept with studies and staff (issue 49), SQLite's `v26-languages` and
/// PostgreSQL's `pg24-languages`:
/// - `studies.languages`: the languages the study declares (a JSON list of codes, the first the
///   one its texts fall back to before English; NULL: none declared, English is the fallback);
/// - `staff.language`: the language a team member reads the console and their mails in (NULL:
///   not chosen yet, so mails go in English and German and the console follows the browser).
enum LanguageSchema {
    static let v26 = """
        ALTER TABLE studies ADD COLUMN languages TEXT;
        ALTER TABLE staff ADD COLUMN language TEXT;
        """
    static let pg24 = """
        ALTER TABLE studies ADD COLUMN languages text;
        ALTER TABLE staff ADD COLUMN language text;
        """
}
