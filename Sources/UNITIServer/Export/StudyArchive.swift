import Foundation
import UNITIProtocol
import ZIPFoundation

/// A study's export as one ZIP (the console's "everything" download): a folder `<study>-export/`
/// holding the answers, the wide files, both codebooks, the SPSS data and syntax, the R script
/// and a README that names each file. Each file is deflated by ZIPFoundation, streamed from disk
/// in chunks, so the memory needed does not grow with the study.
enum StudyArchive {
    /// The folder inside the ZIP (unzipping yields it, the scripts run inside it).
    static func folder(study: String) -> String { "\(study)-export" }

    /// The files in the ZIP, in the README's order.
    static func files(study: String, layouts: [WideLayout]) -> [String] {
        [ExportFileNames.readme, ExportFileNames.answers(study: study), ExportFileNames.codebook(study: study)]
            + layouts.map(\.file)
            + [ExportFileNames.prompts(study: study), ExportFileNames.wideCodebook(study: study), ExportFileNames.rScript(study: study),
               ExportFileNames.spssData(study: study), ExportFileNames.spssSyntax(study: study), ExportFileNames.promptsSyntax(study: study)]
    }

    /// Zips `names` (files in `folder`) into `destination` under the folder's name, readable by
    /// the owner only, as every export file is.
    static func zip(_ names: [String], in folder: URL, to destination: URL) throws {
        do {
            try? FileManager.default.removeItem(at: destination)
            try write(names, in: folder, to: destination)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination.path)
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw ExportFailure("Cannot write \(destination.path): \(error)")
        }
    }

    /// The archive closes when it goes out of scope, here.
    private static func write(_ names: [String], in folder: URL, to destination: URL) throws {
        let archive = try Archive(url: destination, accessMode: .create)
        for name in names {
            try archive.addEntry(with: "\(folder.lastPathComponent)/\(name)", fileURL: folder.appendingPathComponent(name),
                                 compressionMethod: .deflate)
        }
    }

    /// The README: what each file is and how to read it.
    static func readme(study: String, layouts: [WideLayout], rows: Int, sheets: Int, at now: Date) -> String {
        let answers = ExportFileNames.answers(study: study), r = ExportFileNames.rScript(study: study)
        let spssData = ExportFileNames.spssData(study: study), spssSyntax = ExportFileNames.spssSyntax(study: study)
        var text = """
            UNITI export of the study \(study)
            Written \(Timestamps.format(now)) (UTC): \(rows) answer rows from \(sheets) sheets.
            Participants appear by their study pseudonym only.

            FILES

            \(answers)
                The long file: one row per answer (a sheet without answers has one row with an
                empty label and value). Columns: see "Columns of the long file" below.
            \(ExportFileNames.codebook(study: study))
                One row per item of every questionnaire version: its label (the long file's
                label column), type, text and how its answers are written in the value column.

            """
        for layout in layouts {
            text += """
                \(layout.file)
                    The wide file of the questionnaire \(layout.questionnaire): one row per sheet, the
                    sheet's columns first, then one column per item; a multiple choice is its chosen
                    values as written (e.g. 2,3) followed by one column per option (1 chosen,
                    0 not chosen, empty when the item was not answered or not shown).

                """
        }
        text += """
            \(ExportFileNames.prompts(study: study))
                The prompt table: one row per prompt (reminder) of every participant, with when it
                was due, delivered and opened, its outcome (completed, late, missed, open,
                withdrawn, or planned when it has not come yet), the sheet that answered it and
                how long the answer took. Columns: see "Columns of the prompt table" below.
            \(ExportFileNames.wideCodebook(study: study))
                One row per column of every wide file: the file, the column, the questionnaire
                versions an item's column covers, the item's label, the type, the measurement
                level (nominal, ordinal, scale), the text and how the cells are written.
            \(r)
                Reads \(answers) and each wide file in its folder with base R (no packages): times
                become UTC date-times (POSIXct) with a column <name>_offset beside each holding the
                participant's UTC offset in minutes (their local time is the UTC time plus the
                offset), yes/no and single choices become factors with each option's text,
                multiple-choice options become logical columns, and every column gets its label
                as the attribute "label". It prints a summary of each file.
                Run it in this folder: Rscript \(r)
                or in R: setwd("<this folder>"); source("\(r)")
                It leaves the data frames answers, prompts and wide (a list by questionnaire id).
            \(spssData)
                The long file for SPSS and GNU PSPP: the same rows, each on one line (a line
                break inside an answer is written as \\n or \\r, a backslash as \\b).
            \(spssSyntax)
                Reads \(spssData) and makes one case per sheet with a variable per item: times
                as DATETIME in UTC with an _offset variable in minutes, yes/no and single choices
                nominal with value labels, rating scales and pictograms ordinal, sliders scale,
                a multiple choice as one 0/1 variable per option grouped as a multiple-response
                set (MRSETS). Run it in this folder: pspp \(spssSyntax)
                In SPSS, first make this folder the working directory: CD '<this folder>'.
            \(ExportFileNames.promptsSyntax(study: study))
                Reads \(ExportFileNames.prompts(study: study)) as one case per prompt: the _utc times
                as DATETIME in UTC, the _local times as the participant's clock time, snoozed
                0/1 with labels, every variable labelled. Run it in this folder:
                pspp \(ExportFileNames.promptsSyntax(study: study))

            COLUMNS OF THE LONG FILE

            """
        for column in ExportColumn.long {
            text += "\(column.name): \(column.text) (\(column.type.name))\n"
        }
        text += "\nCOLUMNS OF THE PROMPT TABLE\n\n"
        for column in PromptTable.columns {
            text += "\(column.name): \(column.text) (\(column.type.name))\n"
        }
        text += """

            In the CSV files a cell that a spreadsheet would run as a formula (one beginning with
            =, +, -, @, a tab or a carriage return) has a leading ' added, and so has each line
            inside a cell that begins so; a plain number such as -3 stays as it is.

            """
        return text
    }
}
