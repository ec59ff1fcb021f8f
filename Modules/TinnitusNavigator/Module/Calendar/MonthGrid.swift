import UNITICore

/// A month laid out as weeks from Monday to Sunday (the calendar the TinnitusNavigator thesis
/// planned in its outlook): each cell is a day of the month or empty, days with an event are
/// marked, today is bracketed.
struct MonthGrid: Sendable, Equatable {
    let year: Int
    let month: Int
    /// Weeks of seven cells; nil before the first and after the last day.
    let weeks: [[Int?]]

    init(year: Int, month: Int) {
        self.year = year
        self.month = month
        let first = LocalDate(year: year, month: month, day: 1)
        let leading = first.weekday.rawValue - 1   // Monday is 1
        let days = LocalDate.daysIn(year: year, month: month)
        var cells: [Int?] = Array(repeating: nil, count: leading) + (1...days).map { Optional($0) }
        while cells.count % 7 != 0 { cells.append(nil) }
        weeks = stride(from: 0, to: cells.count, by: 7).map { Array(cells[$0..<$0 + 7]) }
    }

    /// `YYYY-MM`.
    init(parsing text: String) throws {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "-")
        guard parts.count == 2, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month) else {
            throw UNITIError(L("tn.calendar.error.month", ["text": text]))
        }
        self.init(year: year, month: month)
    }

    var firstDay: LocalDate { LocalDate(year: year, month: month, day: 1) }
    var nextMonth: LocalDate { firstDay.startOfNextMonth }

    /// The grid as text lines: a header of weekday abbreviations, then one line per week. A
    /// day with events shows `*` after it, today is in brackets.
    func lines(marked: Set<Int>, today: Int?, weekdayNames: [String]) -> [String] {
        // Five columns a day: bracket, two digits, bracket, mark.
        var lines = [weekdayNames.map { " " + $0.padding(toLength: 4, withPad: " ", startingAt: 0) }.joined().trimmingTrailing()]
        for week in weeks {
            var line = ""
            for cell in week {
                guard let day = cell else { line += "     "; continue }
                let number = day < 10 ? " \(day)" : "\(day)"
                let isToday = day == today
                line += (isToday ? "[" : " ") + number + (isToday ? "]" : " ") + (marked.contains(day) ? "*" : " ")
            }
            lines.append(line.trimmingTrailing())
        }
        return lines
    }
}

extension String {
    func trimmingTrailing() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
