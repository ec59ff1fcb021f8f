import Foundation
import Testing
@testable import UNITICore

/// Property tests for `ReminderPlanner.distribute`: thousands of random windows, counts, gaps
/// and seeds, drawn from one seeded source so every run checks the same cases.
@Suite("Random times within a window with a minimum gap", .timeLimit(.minutes(10)))
struct DistributionPropertyTests {
    /// A random window, gap and count; about a third of the counts do not fit.
    struct Case: CustomStringConvertible {
        let window: TimeWindow
        let gap: Int
        let count: Int
        let seed: UInt64
        var description: String { "\(count) in \(window) gap \(gap) seed \(seed)" }
    }

    static func cases(_ number: Int) -> [Case] {
        let meta = SeededRandomSource(seed: 20_260_329)
        return (0..<number).map { _ in
            let start = meta.integer(in: 0...1438)
            let end = meta.integer(in: (start + 1)...1439)
            let window = try! TimeWindow(start: TimeOfDay(minutes: start), end: TimeOfDay(minutes: end))
            let gap = meta.integer(in: 0...120)
            let capacity = gap == 0 ? 200 : window.capacity(minimumGap: gap)
            let count = meta.integer(in: 1...(min(capacity, 200) + max(2, capacity / 2)))
            return Case(window: window, gap: gap, count: count, seed: meta.nextUInt64())
        }
    }

    @Test("every time lies inside its window, gaps are respected, counts are exact; infeasible counts are refused")
    func propertiesHoldForThousandsOfCases() throws {
        var feasible = 0
        var refused = 0
        for c in Self.cases(5000) {
            let fits = (c.count - 1) * c.gap <= c.window.length
            if fits {
                let times = try ReminderPlanner.distribute(count: c.count, in: c.window, minimumGap: c.gap,
                                                           using: SeededRandomSource(seed: c.seed))
                #expect(times.count == c.count, "\(c)")
                #expect(times.allSatisfy(c.window.contains), "\(c)")
                #expect(zip(times, times.dropFirst()).allSatisfy { $1.minutes - $0.minutes >= c.gap }, "\(c)")
                feasible += 1
            } else {
                let error = #expect(throws: UNITIError.self, "\(c)") {
                    try ReminderPlanner.distribute(count: c.count, in: c.window, minimumGap: c.gap,
                                                   using: SeededRandomSource(seed: c.seed))
                }
                // The message names the largest count that fits, and that count does fit.
                let largest = c.window.length / c.gap + 1
                #expect(error?.message.contains("at most \(largest) fit") == true, "\(c): \(error?.message ?? "")")
                #expect(throws: Never.self) {
                    try ReminderPlanner.distribute(count: largest, in: c.window, minimumGap: c.gap,
                                                   using: SeededRandomSource(seed: c.seed))
                }
                refused += 1
            }
        }
        // Both branches were exercised in earnest.
        #expect(feasible > 1000)
        #expect(refused > 500)
    }

    @Test("the same seed gives the same times; another seed gives others")
    func seedsAreDeterministic() throws {
        let window = TimeWindow.standard
        let a = try ReminderPlanner.distribute(count: 8, in: window, minimumGap: 15, using: SeededRandomSource(seed: 1))
        let b = try ReminderPlanner.distribute(count: 8, in: window, minimumGap: 15, using: SeededRandomSource(seed: 1))
        let c = try ReminderPlanner.distribute(count: 8, in: window, minimumGap: 15, using: SeededRandomSource(seed: 2))
        #expect(a == b)
        #expect(a != c)
    }

    @Test("a window exactly full is feasible and yields the evenly spaced times")
    func exactlyFullWindow() throws {
        // 08:00-09:00 holds 5 reminders 15 minutes apart: 08:00, 08:15, ..., 09:00.
        let times = try ReminderPlanner.distribute(count: 5, in: ReminderFixtures.window("08:00-09:00"), minimumGap: 15,
                                                   using: SeededRandomSource(seed: 3))
        #expect(times.map(\.description) == ["08:00", "08:15", "08:30", "08:45", "09:00"])
    }

    @Test("zero or negative counts are refused")
    func countBelowOne() {
        for count in [0, -3] {
            #expect(throws: UNITIError.self) {
                try ReminderPlanner.distribute(count: count, in: .standard, minimumGap: 15, using: SeededRandomSource(seed: 1))
            }
        }
    }

    @Test("times spread over the whole window, not only its start")
    func timesCoverTheWindow() throws {
        var early = 0
        var late = 0
        for seed in 0..<500 as Range<UInt64> {
            let times = try ReminderPlanner.distribute(count: 1, in: .standard, minimumGap: 15, using: SeededRandomSource(seed: seed))
            if times[0].minutes < 15 * 60 { early += 1 } else { late += 1 }
        }
        // One draw in 08:00-22:00: about half before 15:00.
        #expect((200...300).contains(early))
        #expect(early + late == 500)
    }
}
