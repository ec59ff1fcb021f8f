import Foundation
import UNITITesting
import Testing
import UNITICore

/// TrackYourTinnitus through the real `uniti` binary: answers piped in as a person's script
/// would, results read back as JSON.
@Suite("tyt end to end", .enabled(if: Builds.isIntegrated), .timeLimit(.minutes(15)))
struct TrackYourTinnitusEndToEndTests {
    static let answers = "yes\n35\n60\n4\n2\n50\n80\n25\n"

    static func uniti(_ data: TemporaryDataDirectory, _ command: String, stdin: String = "") throws -> Program.Result {
        try Program.run("uniti", ["--data-dir", data.path, "-c", command], stdin: stdin)
    }

    static func results(_ data: TemporaryDataDirectory) throws -> [[String: Any]] {
        let out = try uniti(data, "tyt results --json")
        #expect(out.status == 0, "\(out.err)")
        let object = try JSONSerialization.jsonObject(with: Data(out.out.utf8)) as! [String: Any]
        return object["results"] as! [[String: Any]]
    }

    @Test("a fill by piped answers is read back from results --json, with the level of a recording")
    func fillAndReadBack() throws {
        let data = TemporaryDataDirectory()
        #expect(try Self.uniti(data, "tyt results").out.contains("No results yet"))
        let wav = data.path + "-noise.wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let writer = try WAVWriter(path: wav, format: .cdMono)
        try writer.write((0..<22_050).map { i in pcm16(Float(0.1 * 2.0.squareRoot() * sin(Double(i) * 0.3))) })  // -20 dBFS
        try writer.close()
        let fill = try Self.uniti(data, "tyt fill --noise-from \(wav)", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        #expect(fill.out.contains("dBFS"))
        let results = try Self.results(data)
        #expect(results.count == 1)
        #expect((results[0]["values"] as! [Int]) == [0, 35, 60, 4, 2, 50, 80, 25])
        #expect(abs((results[0]["noiseDBFS"] as! Double) + 20) < 0.5)
        #expect((results[0]["time"] as! String).count == 25)  // 2026-11-22T16:05:09+01:00
    }

    @Test("invalid answers are asked again and never stored; an unfinished fill stores nothing")
    func invalidAnswers() throws {
        let data = TemporaryDataDirectory()
        let fill = try Self.uniti(data, "tyt fill", stdin: "maybe\nyes\n101\n-3\n35\n60\n9\n4\n2\n50\n80\n25\n")
        #expect(fill.status == 0, "\(fill.err)")
        let results = try Self.results(data)
        #expect(results.count == 1)
        #expect((results[0]["values"] as! [Int]) == [0, 35, 60, 4, 2, 50, 80, 25])
        let partial = try Self.uniti(data, "tyt fill", stdin: "no\n10\n20\n")
        #expect(partial.status == 1)
        #expect(try Self.results(data).count == 1)
    }

    @Test("notify commands: bad input names the problem and the largest count, and keeps the previous plan")
    func notify() throws {
        let data = TemporaryDataDirectory()
        #expect(try Self.uniti(data, "tyt notify count 6").status == 0)
        #expect(try Self.uniti(data, "tyt notify window mon 09:00 12:00").status == 0)
        #expect(try Self.uniti(data, "tyt notify add tue 07:30").status == 0)
        let before = try Self.uniti(data, "tyt notify show --json").out
        let refused = [("tyt notify window mon 25:00 26:00", 13), ("tyt notify window tue 12:00 09:00", 13),
                       ("tyt notify count 40", 13), ("tyt notify window mon 09:00 10:00", 5), ("tyt notify add tue 07:30", 13)]
        for (bad, largest) in refused {
            let result = try Self.uniti(data, bad)
            #expect(result.status == 1, "\(bad)")
            #expect(result.err.split(separator: "\n").count == 1, "\(bad): \(result.err)")
            #expect(result.err.contains("at most \(largest)"), "\(bad): \(result.err)")
        }
        #expect(try Self.uniti(data, "tyt notify show --json").out == before)
        #expect(try Self.uniti(data, "tyt notify clear").status == 0)
        let cleared = try JSONSerialization.jsonObject(with: Data(try Self.uniti(data, "tyt notify show --json").out.utf8)) as! [String: Any]
        #expect(cleared["standardPerDay"] as? Int == 0)
        #expect((cleared["custom"] as! [Any]).count == 1)
    }

    @Test("planned reminders over 60 days: exact counts, inside each weekday's window, at least 15 minutes apart, custom ones kept")
    func plannedOverManyDays() throws {
        let data = TemporaryDataDirectory()
        for command in ["tyt notify count 6", "tyt notify window wed 10:00 13:00", "tyt notify add sun 07:00"] {
            #expect(try Self.uniti(data, command).status == 0)
        }
        let list = try Self.uniti(data, "reminders list --days 60 --json")
        let object = try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as! [String: Any]
        let reminders = (object["reminders"] as! [[String: Any]]).filter { $0["moduleID"] as? String == "tyt" }
        var byDay: [String: [Int]] = [:]
        for reminder in reminders {
            let day = reminder["localDate"] as! [String: Int]
            let key = String(format: "%04d-%02d-%02d", day["year"]!, day["month"]!, day["day"]!)
            let time = (reminder["localTime"] as! String).split(separator: ":").map { Int($0)! }
            byDay[key, default: []].append(time[0] * 60 + time[1])
        }
        let days = byDay.keys.sorted().dropFirst().dropLast()  // today and the last day are partial
        #expect(days.count >= 55)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        for day in days {
            let weekday = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: formatter.date(from: day)!).weekday!
            var times = byDay[day]!.sorted()
            if weekday == 1 {
                #expect(times.first == 7 * 60, "\(day)")
                times.removeFirst()
            }
            let window = weekday == 4 ? (10 * 60)...(13 * 60) : (8 * 60)...(22 * 60)
            #expect(times.count == 6, "\(day): \(times)")
            #expect(times.allSatisfy { window.contains($0) }, "\(day): \(times)")
            #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 15 }, "\(day): \(times)")
        }
    }

    @Test("tyt's reminders appear in the shell's calendar export with the tyt fill command")
    func calendarExport() throws {
        let data = TemporaryDataDirectory()
        #expect(try Self.uniti(data, "tyt notify count 3").status == 0)
        let ics = data.path + "-reminders.ics"
        defer { try? FileManager.default.removeItem(atPath: ics) }
        let export = try Self.uniti(data, "reminders export \(ics) --days 7")
        #expect(export.status == 0, "\(export.err)")
        let text = try String(contentsOfFile: ics, encoding: .utf8)
        let events = text.components(separatedBy: "BEGIN:VEVENT").count - 1
        #expect(events >= 18 && events <= 24)  // 3 a day over 7 days, today's passed ones may be gone
        #expect(text.contains("tyt fill"))
    }

    @Test("ringtones list, choose and render; settings say which unit the level is in")
    func ringtoneAndSettings() throws {
        let data = TemporaryDataDirectory()
        let list = try Self.uniti(data, "tyt ringtone list --json")
        let tones = try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as! [[String: Any]]
        #expect(tones.count >= 6)
        #expect(try Self.uniti(data, "tyt ringtone set deep-drum").status == 0)
        #expect(try Self.uniti(data, "tyt ringtone list").out.contains("* deep-drum"))
        #expect(try Self.uniti(data, "tyt ringtone set nope").err.contains("deep-drum"))
        #expect(try Self.uniti(data, "tyt settings calibration 94").out.contains("dB SPL"))
        #expect(try Self.uniti(data, "tyt settings noise on").status == 0)
        // No capture device on a test machine: the result is stored without a level, with a reason.
        let fill = try Self.uniti(data, "tyt fill", stdin: Self.answers)
        #expect(fill.status == 0, "\(fill.err)")
        let results = try Self.results(data)
        #expect(results.count == 1)
    }
}

/// The standalone `track-your-tinnitus`, tested when this test run is the standalone build.
@Suite("track-your-tinnitus end to end", .enabled(if: !Builds.isIntegrated), .timeLimit(.minutes(15)))
struct TrackYourTinnitusStandaloneTests {
    static func run(_ data: TemporaryDataDirectory, _ command: String, stdin: String = "") throws -> Program.Result {
        try Program.run("track-your-tinnitus", ["--data-dir", data.path, "-c", command], stdin: stdin)
    }

    @Test("the baseline asks the module's three questionnaires; item 8 then names the chosen symptom; fill and results work at top level")
    func baselineAndFill() throws {
        let data = TemporaryDataDirectory()
        // Case history (6, the last optional), worst symptom, distress (5).
        let baseline = try Self.run(data, "baseline", stdin: "2\n2\n1\n0\nno\n-\n5\n1\n2\n1\n0\n3\n")
        #expect(baseline.status == 0, "\(baseline.err)")
        #expect(baseline.out.contains("trouble concentrating"))
        let fill = try Self.run(data, "fill", stdin: TrackYourTinnitusEndToEndTests.answers)
        #expect(fill.status == 0, "\(fill.err)")
        #expect(fill.out.contains("trouble concentrating") || fill.err.contains("trouble concentrating"))
        let results = try Self.run(data, "results --json")
        #expect(results.out.contains("\"values\" : [0, 35, 60, 4, 2, 50, 80, 25]"))
    }
}
