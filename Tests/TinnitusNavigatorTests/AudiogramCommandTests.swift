import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: tn audiogram add, edit, delete, show and tn audiograms", .timeLimit(.minutes(10)))
struct AudiogramCommandTests {
    static let oneLine = "tn audiogram add --date 2026-11-20 --left 10,15,20,25,30,40,50 --right 5,10,10,15,20,35,45 "
        + "--extra 3000=35/25 --extra 6000=45/ --pitch-left 6000 --loudness-left 50 --discomfort 1000=95/90 --note 'after the concert'"

    @Test("a one-line add saves every value without asking and queues the audiogram")
    func oneLineAdd() throws {
        let fixture = try TNFixture()
        let result = fixture.run(Self.oneLine)
        #expect(result.succeeded, "\(result.err)")
        #expect(fixture.harness.input.prompts.isEmpty)
        let saved = try #require(try fixture.store.all(Audiogram.self).first)
        #expect(saved.date == "2026-11-20")
        #expect(saved.thresholds.map(\.hz) == [125, 250, 500, 1000, 2000, 3000, 4000, 6000, 8000])
        #expect(saved.threshold(.left, at: 4000) == 40 && saved.threshold(.right, at: 4000) == 35)
        #expect(saved.threshold(.left, at: 3000) == 35 && saved.threshold(.right, at: 3000) == 25)
        #expect(saved.threshold(.left, at: 6000) == 45 && saved.threshold(.right, at: 6000) == nil)
        #expect(saved.pitchLeft == 6000 && saved.loudnessLeft == 50 && saved.pitchRight == nil)
        #expect(saved.discomfort == [EarValues(hz: 1000, left: 95, right: 90)])
        #expect(saved.note == "after the concert")
        // Left (20+25+30+40)/4 = 28.75 mild; right (10+15+20+35)/4 = 20 mild.
        #expect(result.out.contains(HealthRecordID.short(saved.id)))
        #expect(result.out.contains("28.8 dB HL") && result.out.contains("20 dB HL"))
        #expect(try fixture.harness.queuedRecords()["tn/audiogram:\(saved.id)"] != nil)
    }

    @Test("a one-line add names every bad value in one line and saves nothing")
    func everyBadValueNamed() throws {
        let fixture = try TNFixture()
        let result = fixture.run("tn audiogram add --date 2026-13-01 --left 10,15,7,25,30,40,130 --right 5,10,10 "
            + "--extra 20000=10/10 --extra 3000=abc/5 --pitch-left 30000 --loudness-right loud")
        #expect(!result.succeeded)
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1, "\(result.err)")
        let line = String(lines.first ?? "")
        #expect(line.hasPrefix("error: Nothing saved:"))
        for fragment in ["'2026-13-01'", "'7'", "500 Hz", "'130'", "8000 Hz", "right ear: 3 values", "'20000'", "'abc'",
                         "'30000'", "'loud'"] {
            #expect(line.contains(fragment), "missing \(fragment) in \(line)")
        }
        #expect(try fixture.store.all(Audiogram.self).isEmpty)
        #expect(try fixture.harness.queuedRecords().isEmpty)
    }

    @Test("by prompts: a bad answer is named and asked again; empty answers mean not measured")
    func prompts() throws {
        let input = [
            "",                                            // date: today
            "5", "10", "abc", "10", "15", "20", "35", "",  // right ear (abc re-asked at 500 Hz), 8000 not measured
            "10", "15", "20", "25", "30", "40", "125", "50", // left ear (125 re-asked at 8000 Hz)
            "3000", "25", "35",                            // a custom frequency, right then left
            "99999", "",                                   // a bad frequency re-asked, then no more
            "6000", "50",                                  // right tinnitus pitch and loudness
            "",                                            // no left tinnitus
            "1000", "90", "95", "",                        // a discomfort threshold, then no more
            "checked at the clinic",                       // note
        ]
        let fixture = try TNFixture(input: input)
        let result = fixture.run("tn audiogram add")
        #expect(result.succeeded, "\(result.err)")
        let saved = try #require(try fixture.store.all(Audiogram.self).first)
        #expect(saved.date == TNFixture.today.description)
        #expect(saved.threshold(.right, at: 500) == 10)
        #expect(saved.threshold(.right, at: 8000) == nil && saved.threshold(.left, at: 8000) == 50)
        #expect(saved.threshold(.right, at: 3000) == 25 && saved.threshold(.left, at: 3000) == 35)
        #expect(saved.pitchRight == 6000 && saved.loudnessRight == 50 && saved.pitchLeft == nil)
        #expect(saved.discomfort == [EarValues(hz: 1000, left: 95, right: 90)])
        #expect(saved.note == "checked at the clinic")
        // Each bad answer is named, and the same question comes again.
        #expect(result.err.contains("right ear at 500 Hz: 'abc'"))
        #expect(result.err.contains("left ear at 8000 Hz: '125'"))
        #expect(result.err.contains("'99999'"))
        let prompts = fixture.harness.input.prompts
        #expect(prompts.filter { $0.hasPrefix("right ear at 500 Hz") }.count == 2)
        #expect(prompts.filter { $0.hasPrefix("left ear at 8000 Hz") }.count == 2)
    }

    @Test("by prompts: a standard frequency empty for both ears is asked again; the end of input saves nothing")
    func promptsNeedEveryStandardFrequency() throws {
        let both = ["", "5", "10", "10", "15", "20", "35", "", "10", "15", "20", "25", "30", "40", ""]
        let fixture = try TNFixture(input: both + ["40", ""])
        let result = fixture.run("tn audiogram add")
        #expect(!result.succeeded)
        #expect(result.err.contains("8000 Hz has no value for either ear"))
        #expect(fixture.harness.input.prompts.filter { $0.hasPrefix("right ear at 8000 Hz") }.count == 2)
        #expect(try fixture.store.all(Audiogram.self).isEmpty)
    }

    @Test("edit changes only what its options name, keeps the id and queues a newer version")
    func editKeepsID() throws {
        let fixture = try TNFixture()
        #expect(fixture.run(Self.oneLine).succeeded)
        let original = try #require(try fixture.store.all(Audiogram.self).first)
        let firstQueued = try #require(try fixture.harness.queuedRecords()["tn/audiogram:\(original.id)"])
        fixture.harness.clock.advance(by: 3600)
        let result = fixture.run("tn audiogram edit \(HealthRecordID.short(original.id)) --right 5,10,10,15,20,50,45 --extra 3000=/ --pitch-left -")
        #expect(result.succeeded, "\(result.err)")
        let all = try fixture.store.all(Audiogram.self)
        #expect(all.count == 1)
        let edited = try #require(all.first)
        #expect(edited.id == original.id && edited.createdAt == original.createdAt)
        #expect(edited.updatedAt > original.updatedAt)
        #expect(edited.threshold(.right, at: 4000) == 50)
        #expect(edited.threshold(.left, at: 4000) == 40)  // untouched
        #expect(!edited.thresholds.contains { $0.hz == 3000 })  // removed
        #expect(edited.threshold(.left, at: 6000) == 45)  // untouched
        #expect(edited.pitchLeft == nil && edited.loudnessLeft == 50)
        #expect(edited.note == original.note && edited.discomfort == original.discomfort)
        let queued = try #require(try fixture.harness.queuedRecords()["tn/audiogram:\(original.id)"])
        #expect(queued.updatedAt > firstQueued.updatedAt)
        #expect(queued.payload?["thresholds"] != firstQueued.payload?["thresholds"])
        // A bad value in an edit changes nothing.
        #expect(!fixture.run("tn audiogram edit \(original.id) --left 1,2,3,4,5,6,7").succeeded)
        #expect(try fixture.store.all(Audiogram.self).first == edited)
    }

    @Test("delete removes the audiogram and queues a tombstone; a person at a terminal is asked first")
    func deleteQueuesTombstone() throws {
        let fixture = try TNFixture()
        #expect(fixture.run(Self.oneLine).succeeded)
        let saved = try #require(try fixture.store.all(Audiogram.self).first)
        let result = fixture.run("tn audiogram delete \(String(saved.id.prefix(6)))")
        #expect(result.succeeded, "\(result.err)")
        #expect(try fixture.store.all(Audiogram.self).isEmpty)
        let queued = try #require(try fixture.harness.queuedRecords()["tn/audiogram:\(saved.id)"])
        #expect(queued.deleted == true && queued.payload == nil)
        #expect(!fixture.run("tn audiogram delete \(saved.id)").succeeded)
        // Words of either language confirm.
        #expect(Confirmation.isYes("yes") && Confirmation.isYes("Ja") && Confirmation.isYes("j"))
        #expect(!Confirmation.isYes("no") && !Confirmation.isYes(""))
    }

    @Test("tn audiograms lists newest first with id, date, averages and grade; --json carries the computed values")
    func listAndJSON() throws {
        let fixture = try TNFixture()
        #expect(fixture.run(Self.oneLine).succeeded)
        #expect(fixture.run("tn audiogram add --date 2026-05-04 --left 10,10,60,60,60,60,70 --right 0,0,0,0,0,0,10").succeeded)
        let table = fixture.run("tn audiograms")
        #expect(table.succeeded, "\(table.err)")
        let rows = table.out.split(separator: "\n").map(String.init)
        let november = try #require(rows.firstIndex { $0.contains("2026-11-20") })
        let may = try #require(rows.firstIndex { $0.contains("2026-05-04") })
        #expect(november < may)
        #expect(rows[may].contains("60 dB HL (moderately severe hearing loss)") && rows[may].contains("normal hearing"))

        let json = fixture.run("tn audiograms --json")
        #expect(json.succeeded)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]]
        let list = try #require(decoded)
        #expect(list.map { $0["date"] as? String } == ["2026-11-20", "2026-05-04"])
        let older = list[1]
        #expect((older["pta"] as? [String: Any])?["left"] as? Double == 60)
        #expect((older["pta"] as? [String: Any])?["right"] as? Double == 0)
        let grade = try #require(older["grade"] as? [String: Any])
        #expect(grade["left"] as? String == "moderately-severe" && grade["right"] as? String == "normal")
        #expect(grade["overall"] as? String == "normal")
        #expect((older["thresholds"] as? [[String: Any]])?.count == 7)
    }

    @Test("show draws both ears with the legend, the values, and the change since the audiogram before")
    func showComparesWithPrevious() throws {
        let fixture = try TNFixture()
        #expect(fixture.run("tn audiogram add --date 2026-05-04 --left 10,10,15,20,25,30,40 --right 5,5,10,10,20,40,50").succeeded)
        #expect(fixture.run(Self.oneLine).succeeded)
        let newest = try #require(try fixture.store.all(Audiogram.self).first { $0.date == "2026-11-20" })
        let older = try #require(try fixture.store.all(Audiogram.self).first { $0.date == "2026-05-04" })
        let result = fixture.run("tn audiogram show \(HealthRecordID.short(newest.id))")
        #expect(result.succeeded, "\(result.err)")
        let out = result.out
        #expect(out.contains("O") && out.contains("X"))
        #expect(out.contains("O━ right ear") && out.contains("X━ left ear"))
        #expect(out.contains("1 kHz") && out.contains("8 kHz"))
        #expect(out.contains("Change from 2026-05-04 (\(HealthRecordID.short(older.id))) to 2026-11-20"))
        // Right ear at 4000 Hz: 40 → 35.
        #expect(out.split(separator: "\n").contains { $0.contains("4000") && $0.contains("40 → 35") && $0.contains("−5") })
        #expect(out.contains("Tinnitus, left ear: 6000 Hz at 50 dB."))

        let json = fixture.run("tn audiogram show \(newest.id) --compare \(older.id) --json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let comparison = try #require(object["comparison"] as? [String: Any])
        #expect(comparison["beforeID"] as? String == older.id)
        let rows = try #require(comparison["rows"] as? [[String: Any]])
        let row = try #require(rows.first { $0["hz"] as? Int == 4000 })
        #expect((row["left"] as? [String: Any])?["change"] as? Int == 10)
        // The oldest has none before it.
        #expect(!fixture.run("tn audiogram show \(older.id)").out.contains("Change from"))
    }

    @Test("the terminal chart shows O for the right ear, X for the left, * where both meet, U and ~, and a legend")
    func terminalChart() throws {
        let audiogram = try Audiogram(
            date: TNFixture.today,
            thresholds: Audiogram.standardFrequencies.enumerated().map { index, hz in
                EarValues(hz: hz, left: index == 0 ? 10 : 60 + 5 * index, right: 10)
            },
            discomfort: [EarValues(hz: 2000, left: nil, right: 100)], pitchRight: 4000, loudnessRight: 30, now: TNFixture.now)
        let lines = try AudiogramTerminalChart(chart: TerminalChart(width: 80, height: 15)).lines(audiogram)
        let plot = lines.dropFirst().prefix(15)
        #expect(plot.contains { $0.contains("O") })
        #expect(plot.contains { $0.contains("X") })
        #expect(plot.contains { $0.contains("*") })  // both ears at 10 dB, 125 Hz
        #expect(plot.contains { $0.contains("U") } && plot.contains { $0.contains("~") })
        // Hearing level grows downwards: 0 dB labelled above 120 dB.
        let zero = try #require(lines.firstIndex { $0.hasPrefix("  0┤") })
        let bottom = try #require(lines.firstIndex { $0.hasPrefix("120┤") })
        #expect(zero < bottom)
        // The left ear's X lies below its right ear's O (worse hearing lower).
        let rowOfX = try #require(plot.firstIndex { $0.contains("X") })
        let rowOfO = try #require(plot.firstIndex { $0.contains("O") })
        #expect(rowOfO < rowOfX)
        let legend = lines.suffix(3).joined(separator: "\n")
        for entry in ["O━ right ear", "X━ left ear", "U discomfort, right", "~ tinnitus, right", "* both ears"] {
            #expect(legend.contains(entry), "\(entry) missing in \(legend)")
        }
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    @Test("show --ear draws one ear in the terminal and in the SVG; without it both stay", .timeLimit(.minutes(10)))
    func showOneEar() throws {
        let fixture = try TNFixture()
        #expect(fixture.run(Self.oneLine).succeeded)
        let audiogram = try #require(try fixture.store.all(Audiogram.self).first)
        let id = HealthRecordID.short(audiogram.id)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ear-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let left = fixture.run("tn audiogram show \(id) --ear left --svg \(directory.path)/left.svg")
        #expect(left.succeeded, "\(left.err)")
        // The chart: every line before the values' header ("Audiogram <id> of ...").
        let chart = left.out.split(separator: "\n").prefix { !$0.hasPrefix("Audiogram \(id)") }
        #expect(chart.first?.contains("Audiogram of 2026-11-20, left ear") == true, "\(left.out)")
        #expect(chart.contains { $0.contains("X") } && !chart.contains { $0.contains("O") }, "\(left.out)")
        #expect(left.out.contains("X━ left ear") && !left.out.contains("* both ears"))
        #expect(left.out.contains("Tinnitus, left ear: 6000 Hz at 50 dB."))
        let leftSVG = try String(contentsOf: directory.appendingPathComponent("left.svg"), encoding: .utf8)
        #expect(leftSVG.contains("class=\"left-ear\"") && !leftSVG.contains("class=\"right-ear\""))
        #expect(leftSVG.contains("left-line") && !leftSVG.contains("right-line") && !leftSVG.contains("right-discomfort"))
        #expect(leftSVG.contains("Audiogram of 2026-11-20, left ear"))

        let right = fixture.run("tn audiogram show \(id) --ear right --svg \(directory.path)/right.svg")
        #expect(right.out.contains("O━ right ear") && !right.out.contains("X━ left ear"))
        #expect(!right.out.contains("Tinnitus, left ear"))
        let rightSVG = try String(contentsOf: directory.appendingPathComponent("right.svg"), encoding: .utf8)
        #expect(rightSVG.contains("class=\"right-ear\"") && !rightSVG.contains("class=\"left-ear\""))

        let both = fixture.run("tn audiogram show \(id) --svg \(directory.path)/both.svg")
        #expect(both.out.contains("O━ right ear") && both.out.contains("X━ left ear"))
        let bothSVG = try String(contentsOf: directory.appendingPathComponent("both.svg"), encoding: .utf8)
        #expect(bothSVG.contains("class=\"right-ear\"") && bothSVG.contains("class=\"left-ear\""))

        // One ear throughout: the values, the average and the comparison name no other ear.
        let values = left.out.components(separatedBy: "Audiogram \(id)").last ?? ""
        #expect(values.contains(" left") && !values.contains("right"), "\(values)")
        #expect(values.contains("Pure-tone average (500, 1000, 2000, 4000 Hz), left: 28.8 dB HL"), "\(values)")
        #expect(!values.contains("by the better ear"))
        #expect(fixture.run("tn audiogram add --date 2026-11-25 --left 10,15,25,25,30,40,50 --right 5,10,10,15,20,35,45").succeeded)
        let later = try #require(try fixture.store.all(Audiogram.self).first { $0.date == "2026-11-25" })
        let compared = fixture.run("tn audiogram show \(HealthRecordID.short(later.id)) --ear left")
        let change = compared.out.components(separatedBy: "Change from").last ?? ""
        #expect(change.contains("20 → 25") && change.contains("Change of the pure-tone average, left: +1.3 dB."), "\(change)")
        #expect(!change.contains("right"), "\(change)")

        let wrong = fixture.run("tn audiogram show \(id) --ear middle")
        #expect(!wrong.succeeded && wrong.err.split(separator: "\n").count == 1 && wrong.err.contains("left"), "\(wrong.err)")
    }

    @Test("numbers a person reads take the language's decimal separator: 28,8 dB HL in German")
    func germanDecimalComma() throws {
        let fixture = try TNFixture()
        #expect(fixture.run(Self.oneLine).succeeded)
        let id = HealthRecordID.short(try #require(try fixture.store.all(Audiogram.self).first).id)
        try CurrentLanguage.$scope.withValue(LockedValue(.german)) { () throws in
            let shown = fixture.run("tn audiogram show \(id)")
            #expect(shown.out.contains("links 28,8 dB HL"), "\(shown.out)")
            #expect(!shown.out.contains("28.8"))
            let listed = fixture.run("tn audiograms")
            #expect(listed.out.contains("28,8 dB HL"), "\(listed.out)")
            // The machine-readable output keeps the point.
            let json = fixture.run("tn audiograms --json")
            #expect(json.out.contains("28.75") && !json.out.contains("28,75"), "\(json.out)")
        }
    }
}
