import Testing
import UNITICore

@Suite("Durations", .timeLimit(.minutes(10)))
struct DurationFormatTests {
    @Test("a duration reads mm:ss below an hour and h:mm:ss from an hour on, seconds cut, never negative")
    func minutesThenHours() {
        #expect(formatDuration(59.99) == "00:59")
        #expect(formatDuration(600) == "10:00")
        #expect(formatDuration(3599) == "59:59")
        #expect(formatDuration(3600) == "1:00:00")
        #expect(formatDuration(3725) == "1:02:05")
        #expect(formatDuration(-5) == "00:00")
    }
}
