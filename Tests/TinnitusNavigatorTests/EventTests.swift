import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: events (thesis FR9): added, listed, searched, edited and deleted as synced records", .timeLimit(.minutes(10)))
struct EventTests {
    @Test("one line adds an event at the local wall-clock time and queues it for the other devices")
    func oneLine() throws {
        let fixture = try TNFixture()
        let result = fixture.run("tn event add --title 'ENT appointment' --at '2026-11-20 14:30' --type appointment --description 'Dr. Weber, audiogram'")
        #expect(result.succeeded, "\(result.err)")
        let event = try #require(try fixture.store.all(HealthEvent.self).first)
        #expect(event.title == "ENT appointment" && event.type == .appointment && event.description == "Dr. Weber, audiogram")
        #expect(EntryInput.show(event.at, in: ModuleHarness.berlin) == "2026-11-20 14:30")
        #expect(event.at == LocalDate(year: 2026, month: 11, day: 20).instant(at: TimeOfDay(hour: 14, minute: 30), in: ModuleHarness.berlin))
        let queued = try #require(try fixture.harness.queuedRecords()["tn/event:\(event.id)"])
        #expect(queued.deleted != true && queued.payload != nil)
    }

    @Test("by questions: a bad time and a bad type are named and asked again; nothing is saved until all is right")
    func prompts() throws {
        let fixture = try TNFixture(input: ["Loud ringing after concert", "yesterday", "2026-11-22 23:10", "9", "3", "lasted two hours"])
        let result = fixture.run("tn event add")
        #expect(result.succeeded, "\(result.err)")
        #expect(result.err.contains("'yesterday' is not a date and time"))
        let event = try #require(try fixture.store.all(HealthEvent.self).first)
        #expect(event.type == .attack && event.description == "lasted two hours")
        #expect(EntryInput.show(event.at, in: ModuleHarness.berlin) == "2026-11-22 23:10")
    }

    @Test("a wrong option is one line and saves nothing")
    func wrongOptions() throws {
        let fixture = try TNFixture()
        for line in ["tn event add --title X --at '2026-13-01 10:00' --type other",
                     "tn event add --title X --at '2026-11-01 10:00' --type party",
                     "tn event add --title '  ' --at '2026-11-01 10:00' --type other"] {
            let result = fixture.run(line)
            #expect(!result.succeeded)
            #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        }
        #expect(try fixture.store.all(HealthEvent.self).isEmpty)
        #expect(try fixture.harness.queuedRecords().isEmpty)
    }

    @Test("listing: newest first by default; search in title and description ignores case and umlauts; type, period and title order")
    func listing() throws {
        let fixture = try TNFixture()
        fixture.run("tn event add --title 'Hörtest beim HNO' --at '2026-10-01 09:00' --type appointment")
        fixture.run("tn event add --title 'Attack at night' --at '2026-11-02 02:00' --type attack --description 'after stress at work'")
        fixture.run("tn event add --title 'Burnout diagnosis' --at '2026-09-15 11:00' --type mental-illness")
        func titles(_ line: String) throws -> [String] {
            let result = fixture.run(line + " --json")
            #expect(result.succeeded, "\(result.err)")
            return try JSONDecoder().decode([[String: String?]].self, from: Data(result.out.utf8)).map { $0["title"]!! }
        }
        #expect(try titles("tn events") == ["Attack at night", "Hörtest beim HNO", "Burnout diagnosis"])
        #expect(try titles("tn events --oldest-first") == ["Burnout diagnosis", "Hörtest beim HNO", "Attack at night"])
        #expect(try titles("tn events --search HÖRTEST") == ["Hörtest beim HNO"])
        #expect(try titles("tn events --search stress") == ["Attack at night"])
        #expect(try titles("tn events --type mental-illness") == ["Burnout diagnosis"])
        #expect(try titles("tn events --from 2026-10-01 --to 2026-10-31") == ["Hörtest beim HNO"])
        #expect(try titles("tn events --sort title") == ["Attack at night", "Burnout diagnosis", "Hörtest beim HNO"])
        #expect(!fixture.run("tn events --from 2026-11-01 --to 2026-10-01").succeeded)
        #expect(!fixture.run("tn events --sort size").succeeded)
    }

    @Test("editing keeps the id and creation time and queues a newer version; deleting queues a tombstone")
    func editAndDelete() throws {
        let fixture = try TNFixture()
        fixture.run("tn event add --title 'Appointment' --at '2026-11-20 14:30' --type appointment")
        let original = try #require(try fixture.store.all(HealthEvent.self).first)
        fixture.harness.clock.advance(by: 60)
        let short = String(original.id.prefix(6))
        let edited = fixture.run("tn event edit \(short) --title 'ENT appointment' --description 'bring the audiogram'")
        #expect(edited.succeeded, "\(edited.err)")
        let events = try fixture.store.all(HealthEvent.self)
        #expect(events.count == 1 && events[0].id == original.id && events[0].createdAt == original.createdAt)
        #expect(events[0].title == "ENT appointment" && events[0].at == original.at && events[0].updatedAt > original.updatedAt)
        let queued = try #require(try fixture.harness.queuedRecords()["tn/event:\(original.id)"])
        #expect(queued.updatedAt == OffsetTimestamp.utcMilliseconds(events[0].updatedAt))
        #expect(fixture.run("tn event delete \(short)").succeeded)
        #expect(try fixture.store.all(HealthEvent.self).isEmpty)
        #expect(try fixture.harness.queuedRecords()["tn/event:\(original.id)"]?.deleted == true)
        #expect(!fixture.run("tn event show \(short)").succeeded)
    }

    @Test("an id prefix shorter than four characters or matching nothing is one clear line")
    func idPrefixes() throws {
        let fixture = try TNFixture()
        #expect(fixture.run("tn event show ab").err.contains("too short"))
        #expect(fixture.run("tn event show abcdef").err.contains("No event has an id starting with 'abcdef'"))
    }
}
