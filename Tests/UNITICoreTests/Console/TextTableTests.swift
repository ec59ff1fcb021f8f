import Testing
@testable import UNITICore

@Suite("Tables in the terminal", .timeLimit(.minutes(10)))
struct TextTableTests {
    @Test("columns align by display width: a decomposed umlaut, an en dash and a wide character take the columns they show in")
    func alignsByDisplayWidth() {
        let table = TextTable(rows: [["Gera\u{308}usch", "1"], ["Bach – Fluss", "2"], ["雨", "3"]])
        #expect(table.lines() == [
            "  Geräusch      1",
            "  Bach – Fluss  2",
            "  雨            3",
        ])
        // Where `padding(toLength:)` would count the decomposed "ä" as two and "雨" as one.
        #expect(table.lines().map { String($0.dropLast()).displayWidth } == [16, 16, 16])
    }

    @Test("a right-aligned column lines up on the right, and the header is laid out like a row")
    func rightAlignmentAndHeader() {
        let table = TextTable(columns: [.left, .right], header: ["sound", "plays"], rows: [["rain", "2"], ["white noise", "12"]])
        #expect(table.lines() == [
            "  sound        plays",
            "  rain             2",
            "  white noise     12",
        ])
    }

    @Test("a minimum keeps a column's width; past a maximum a long cell overruns instead of widening the column")
    func minimumAndMaximumWidth() {
        let table = TextTable(columns: [.init(minimumWidth: 6), .init(maximumWidth: 4)], rows: [["a", "bb", "x"], ["b", "longer", "y"]], indent: 0)
        #expect(table.lines() == [
            "a       bb    x",
            "b       longer  y",
        ])
    }

    @Test("on a terminal, a row too wide goes on below, its text wrapped between words under its column; nothing is cut; piped output, and a table that keeps its values whole, stay one line a row")
    func wrapsToTerminalWidth() {
        let rows = [["tyt", "Short tinnitus check-ins at reminder times, with charts of your answers."], ["son", "Sound."]]
        let (terminal, shown) = Console.capturing(isTerminal: true, width: 30)
        terminal.table(TextTable(rows: rows))
        #expect(shown.out == """
              tyt  Short tinnitus
                   check-ins at reminder
                   times, with charts of
                   your answers.
              son  Sound.

            """)
        #expect(shown.out.split(separator: "\n").allSatisfy { String($0).displayWidth <= 30 })

        let (pipe, piped) = Console.capturing(isTerminal: false, width: 30)
        pipe.table(TextTable(rows: rows))
        #expect(piped.out == "  tyt  \(rows[0][1])\n  son  Sound.\n")

        let (whole, kept) = Console.capturing(isTerminal: true, width: 30)
        whole.table(TextTable(rows: rows, cutsToTerminalWidth: false))
        #expect(kept.out == piped.out)
    }

    @Test("wrapping measures in columns (German, Greek, CJK), breaks a word longer than a line, and moves the text below when the other cells leave too little room")
    func wrapsWideAndLongText() {
        let german = TextTable(rows: [["Nächste", "Erinnerung am Mittwoch, 3. Dezember um 09:41 Uhr"]])
        let lines = german.lines(wrappingAt: 32)
        #expect(lines.allSatisfy { $0.displayWidth <= 32 }, "\(lines)")
        #expect(lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
                == "Nächste Erinnerung am Mittwoch, 3. Dezember um 09:41 Uhr")
        #expect(lines[1].hasPrefix(String(repeating: " ", count: 11)))

        let wide = TextTable(rows: [["x", "雨雨雨雨雨雨雨雨雨雨雨雨雨雨雨雨雨雨雨雨"]]).lines(wrappingAt: 25)
        #expect(wide.allSatisfy { $0.displayWidth <= 25 }, "\(wide)")
        #expect(wide.joined().filter { $0 == "雨" }.count == 20)

        let cramped = TextTable(rows: [["a-rather-long-first-cell", "due again on 2027-01-01 after this month"]]).lines(wrappingAt: 30)
        #expect(cramped.first == "  a-rather-long-first-cell", "\(cramped)")
        #expect(cramped.dropFirst().allSatisfy { $0.displayWidth <= 30 && $0.hasPrefix("  ") }, "\(cramped)")
        #expect(cramped.joined().contains("after"))
    }

    @Test("cutting counts wide characters as two columns")
    func cutsWideCharacters() {
        #expect("雨雨雨雨".truncated(toDisplayWidth: 5) == "雨雨…")
        #expect("Grün".truncated(toDisplayWidth: 4) == "Grün")
    }
}
