import Testing
@testable import UNITICore

@Suite("Parsing times, weekdays and windows", .timeLimit(.minutes(10)))
struct TimeParsingTests {
    @Test("HH:MM times parse; one-digit hours are accepted")
    func validTimes() throws {
        #expect(try TimeOfDay(parsing: "08:30").minutes == 510)
        #expect(try TimeOfDay(parsing: "8:05").description == "08:05")
        #expect(try TimeOfDay(parsing: "00:00").minutes == 0)
        #expect(try TimeOfDay(parsing: "23:59").minutes == 1439)
    }

    @Test("malformed times are refused with one line saying what is accepted")
    func invalidTimes() {
        for text in ["25:00", "24:00", "12:60", "12", "12:5", "ab:cd", "-1:00", "", "12:30:00", "１２:００"] {
            let error = #expect(throws: UNITIError.self) { try TimeOfDay(parsing: text) }
            #expect(error?.message.contains("use HH:MM between 00:00 and 23:59") == true)
            #expect(error?.message.contains("\n") == false)
        }
        let error = #expect(throws: UNITIError.self) { try TimeOfDay(parsing: "25:00") }
        #expect(error?.message == "25:00 is not a time; use HH:MM between 00:00 and 23:59")
    }

    @Test("weekday names parse in English and German, short and long, any case")
    func weekdays() throws {
        let expected: [(String, Weekday)] = [
            ("mon", .monday), ("Mo", .monday), ("MONTAG", .monday), ("monday", .monday),
            ("tue", .tuesday), ("tuesday", .tuesday), ("di", .tuesday), ("Dienstag", .tuesday),
            ("wed", .wednesday), ("mi", .wednesday), ("mittwoch", .wednesday),
            ("thu", .thursday), ("do", .thursday), ("donnerstag", .thursday),
            ("fri", .friday), ("fr", .friday), ("freitag", .friday),
            ("sat", .saturday), ("sa", .saturday), ("samstag", .saturday), ("sonnabend", .saturday),
            ("sun", .sunday), ("so", .sunday), ("sonntag", .sunday), ("Sunday", .sunday),
        ]
        for (text, day) in expected {
            #expect(try Weekday(parsing: text) == day, "\(text)")
        }
        #expect(throws: UNITIError.self) { try Weekday(parsing: "funday") }
    }

    @Test("windows parse as HH:MM-HH:MM and must start before they end")
    func windows() throws {
        let window = try TimeWindow(parsing: "08:00-22:00")
        #expect(window == .standard)
        #expect(window.length == 14 * 60)
        #expect(throws: UNITIError.self) { try TimeWindow(parsing: "22:00-08:00") }
        #expect(throws: UNITIError.self) { try TimeWindow(parsing: "10:00-10:00") }
        #expect(throws: UNITIError.self) { try TimeWindow(parsing: "10:00") }
    }

    @Test("fixed entries parse as WEEKDAY HH:MM")
    func fixedEntries() throws {
        #expect(try FixedReminderTime(parsing: "di 19:00") == FixedReminderTime(weekday: .tuesday, time: ReminderFixtures.time("19:00")))
        #expect(throws: UNITIError.self) { try FixedReminderTime(parsing: "tuesday") }
    }

    @Test("local dates convert to day numbers and weekdays and back")
    func localDates() throws {
        let date = try LocalDate(parsing: "2026-03-29")
        #expect(date.weekday == .sunday)
        #expect(LocalDate(dayNumber: date.dayNumber) == date)
        #expect(LocalDate(dayNumber: 0).description == "1970-01-01")
        #expect(LocalDate(dayNumber: -1).description == "1969-12-31")
        #expect(try LocalDate(parsing: "2028-02-29").adding(days: 1).description == "2028-03-01")
        #expect(throws: UNITIError.self) { try LocalDate(parsing: "2026-02-29") }
        // Every day over 1200 years round-trips.
        for number in stride(from: -200_000, to: 250_000, by: 97) {
            #expect(LocalDate(dayNumber: number).dayNumber == number)
        }
    }
}
