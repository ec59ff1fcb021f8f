import Foundation
import UNITIProtocol
import UNITICore

/// The report as one self-contained HTML file: inline CSS, inline SVG audiograms, no scripts
/// and nothing loaded from elsewhere, so it opens offline and prints to A4 as it is (print
/// CSS: page margins, no breaks inside a picture, a summary or a table row, headings kept with
/// what follows; a whole audiogram entry may break, or a page would stay empty before it).
/// Every text a person typed is escaped.
struct DoctorReportHTML {
    let report: DoctorReport

    static let style = """
        @page { size: A4; margin: 16mm 15mm 18mm 15mm; }
        body { font-family: "DejaVu Sans", Arial, Helvetica, sans-serif; font-size: 10pt; color: #111; margin: 0; line-height: 1.35; }
        @media screen { body { max-width: 180mm; margin: 10mm auto; } }
        header { border-bottom: 2px solid #333; margin-bottom: 8pt; padding-bottom: 4pt; }
        h1 { font-size: 18pt; margin: 0 0 4pt 0; }
        h2 { font-size: 13.5pt; margin: 14pt 0 6pt 0; border-bottom: 1px solid #999; break-after: avoid; page-break-after: avoid; }
        h3 { font-size: 11pt; margin: 10pt 0 4pt 0; break-after: avoid; page-break-after: avoid; }
        p { margin: 2pt 0; }
        .meta { color: #333; }
        figure, tr, .summary { break-inside: avoid; page-break-inside: avoid; }
        figure { margin: 4pt 0; }
        figure svg { width: 100mm; height: auto; }
        table { border-collapse: collapse; width: 100%; margin: 4pt 0 8pt 0; }
        th, td { border: 1px solid #aaa; padding: 2pt 5pt; text-align: left; vertical-align: top; }
        th { background: #eee; }
        td.number, th.number { text-align: right; }
        .empty { color: #555; font-style: italic; }
        footer { margin-top: 14pt; color: #555; font-size: 8.5pt; }
        """

    func document() -> String {
        let zone = report.timeZone
        let generated = LocalDate(report.generatedAt, in: zone)
        var html = """
        <!DOCTYPE html>
        <html lang="\(CurrentLanguage.value.rawValue)">
        <head>
        <meta charset="utf-8">
        <title>\(e(L("tn.report.title")))</title>
        <style>
        \(Self.style)
        </style>
        </head>
        <body>
        <header>
        <h1>\(e(L("tn.report.title")))</h1>
        <p class="meta">\(e(L("tn.report.period", ["from": report.from.description, "to": report.to.description])))</p>
        <p class="meta">\(e(L("tn.report.generated", ["date": generated.description])))</p>
        <p class="meta">\(e(L("tn.report.pseudonymous")))</p>
        </header>

        """
        html += audiograms()
        html += therapies()
        html += events()
        html += questionnaires()
        html += "<footer>\(e(L("tn.report.footer")))</footer>\n</body>\n</html>\n"
        return html
    }

    private func e(_ text: String) -> String { MarkupText.escape(text) }

    private func table(header: [String], rows: [[String]], numeric: Set<Int> = []) -> String {
        var html = "<table>\n<thead><tr>"
        for (index, cell) in header.enumerated() {
            html += numeric.contains(index) ? "<th class=\"number\">\(e(cell))</th>" : "<th>\(e(cell))</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for row in rows {
            html += "<tr>"
            for (index, cell) in row.enumerated() {
                html += numeric.contains(index) ? "<td class=\"number\">\(e(cell))</td>" : "<td>\(e(cell))</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    private func empty(_ key: String) -> String {
        "<p class=\"empty\">\(e(L(key)))</p>\n"
    }

    func audiograms() -> String {
        var html = "<section class=\"audiograms\">\n<h2>\(e(L("tn.report.audiograms")))</h2>\n"
        if report.audiograms.isEmpty { html += empty("tn.report.audiograms.none") }
        for audiogram in report.audiograms {
            let plot = AudiogramPlot(audiogram)
            html += "<div class=\"entry\">\n<h3>\(e(L("tn.report.audiogram.heading", ["date": audiogram.date])))</h3>\n"
            html += "<figure>\n\(AudiogramSVG(fitting: plot).element(plot))</figure>\n"
            html += "<div class=\"summary\">\n"
            html += "<p>\(e(L("tn.audiogram.show.averages", ["right": AudiogramText.average(audiogram, ear: .right), "left": AudiogramText.average(audiogram, ear: .left)])))</p>\n"
            html += "<p>\(e(L("tn.audiogram.show.grade", ["grade": AudiogramText.overallGrade(audiogram)])))</p>\n"
            for ear in [Ear.right, .left] {
                if let tinnitus = AudiogramText.tinnitus(audiogram, ear: ear) {
                    html += "<p>\(e(L("tn.audiogram.show.tinnitus", ["ear": ear.title, "text": tinnitus])))</p>\n"
                }
            }
            if let note = audiogram.note { html += "<p>\(e(L("tn.audiogram.show.note", ["note": note])))</p>\n" }
            html += "</div>\n"
            let rows = AudiogramText.thresholdRows(audiogram)
            html += table(header: rows.header, rows: rows.rows, numeric: Set(0..<rows.header.count))
            html += "</div>\n"
        }
        return html + "</section>\n"
    }

    func therapies() -> String {
        var html = "<section class=\"therapies\">\n<h2>\(e(L("tn.report.therapies")))</h2>\n"
        guard !report.therapies.isEmpty else { return html + empty("tn.report.therapies.none") + "</section>\n" }
        let header = [L("tn.report.column.therapy"), L("tn.report.column.type"), L("tn.report.column.start"),
                      L("tn.report.column.end"), L("tn.report.column.outcome")]
        html += table(header: header, rows: report.therapies.map { therapy in
            [therapy.name, therapy.type.title, therapy.start, therapy.end ?? L("tn.report.ongoing"), therapy.note ?? "–"]
        })
        return html + "</section>\n"
    }

    func events() -> String {
        var html = "<section class=\"events\">\n<h2>\(e(L("tn.report.events")))</h2>\n"
        guard !report.events.isEmpty else { return html + empty("tn.report.events.none") + "</section>\n" }
        let header = [L("tn.report.column.when"), L("tn.report.column.type"), L("tn.report.column.title"),
                      L("tn.report.column.description")]
        html += table(header: header, rows: report.events.map { event in
            [moment(event.at), event.type.title, event.title, event.description ?? "–"]
        })
        return html + "</section>\n"
    }

    func questionnaires() -> String {
        var html = "<section class=\"questionnaires\">\n<h2>\(e(L("tn.report.questionnaires")))</h2>\n"
        guard !report.questionnaires.isEmpty else { return html + empty("tn.report.questionnaires.none") + "</section>\n" }
        for history in report.questionnaires {
            html += "<div class=\"entry\">\n<h3>\(e(history.title))</h3>\n"
            // The score columns of the first completion with a definition (a version's scores).
            let titles = history.completions.first { $0.hasDefinition }?.scores.map(\.title) ?? []
            var header = [L("tn.report.column.completed")]
            header += titles
            let rows = history.completions.map { completion -> [String] in
                var row = [moment(completion.completedAt)]
                if completion.hasDefinition {
                    row += titles.map { title in
                        guard let score = completion.scores.first(where: { $0.title == title }), let value = score.value else { return "–" }
                        let number = AudiogramText.decibels(value)
                        return score.grade.map { "\(number) (\($0))" } ?? number
                    }
                } else {
                    row += titles.map { _ in "–" }
                }
                return row
            }
            html += table(header: header, rows: rows, numeric: Set(1..<max(header.count, 1)))
            if history.completions.contains(where: { !$0.hasDefinition }) {
                html += empty("tn.report.questionnaires.noScores")
            }
            html += "</div>\n"
        }
        return html + "</section>\n"
    }

    /// A moment as day and time on the person's clock.
    private func moment(_ date: Date) -> String {
        "\(LocalDate(date, in: report.timeZone)) \(TimeOfDay(localTimeOf: date, in: report.timeZone))"
    }
}
