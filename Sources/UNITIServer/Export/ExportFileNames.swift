/// The names a study's export files are written and downloaded under, the same from the console
/// and `uniti-server export`. The R script, the SPSS syntax and the ZIP's README name the files
/// they read from here, so what they name is what was downloaded.
enum ExportFileNames {
    /// One row per answer (``StudyExport``).
    static func answers(study: String) -> String { "\(study)-answers.csv" }
    /// A row per item of every questionnaire version (``Codebook``).
    static func codebook(study: String) -> String { "\(study)-codebook.csv" }
    /// One row per sheet of one questionnaire (``WideLayout``).
    static func wide(study: String, questionnaire: String) -> String { "\(study)-\(fileSafe(questionnaire))-wide.csv" }
    /// A row per column of every wide file (``Codebook/wideCSV(_:)``).
    static func wideCodebook(study: String) -> String { "\(study)-wide-codebook.csv" }
    /// The answers one record per line, for SPSS and PSPP (``ExportFormat/spss``).
    static func spssData(study: String) -> String { "\(study)-answers-spss.csv" }
    /// The SPSS syntax that reads the SPSS data (``SPSSSyntax``).
    static func spssSyntax(study: String) -> String { "\(study)-answers.sps" }
    /// The R script that reads the answers and the wide files (``RScript``).
    static func rScript(study: String) -> String { "\(study)-answers.R" }
    /// Everything above and a README in one file (``StudyArchive``).
    static func archive(study: String) -> String { "\(study)-export.zip" }
    /// The prompt table (``PromptTable``).
    static func prompts(study: String) -> String { "\(study)-prompts.csv" }
    /// The SPSS syntax that reads the prompt table (``SPSSSyntax/promptTable(data:)``).
    static func promptsSyntax(study: String) -> String { "\(study)-prompts.sps" }
    /// The README inside the ZIP.
    static let readme = "README.txt"

    /// A questionnaire id as part of a file name: letters, digits, `-`, `_` and `.` stay (what a
    /// questionnaire id is made of), anything else becomes `_`.
    static func fileSafe(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        })
    }
}
