import Foundation
import Testing
@testable import ShadesOfNoise
import UNITICore
import UNITIProtocol

@Suite("Shades Of Noise records follow the person", .timeLimit(.minutes(10)))
struct SyncRecordTests {
    func session(at date: Date, rating: Int = 3) -> ListeningSession {
        ListeningSession(sound: "pink-noise", startedAt: date.addingTimeInterval(-300), endedAt: date,
                         listenedSeconds: 300, loop: nil, outcome: .rated(rating), output: "file")
    }

    @Test("saving a session, a favourite and the frequency queues each as a son record in the same write")
    func savingQueues() throws {
        let fixture = try SonFixture()
        let store = fixture.store
        let saved = session(at: fixture.clock.now)
        try store.save(saved)
        try store.addFavorite("rain", at: fixture.clock.now)
        _ = try TinnitusFrequency.store("4000", in: fixture.context)
        let queued = try fixture.queued()
        let sessionEntry = try #require(queued["record:son:session:\(saved.id)"])
        #expect(sessionEntry.kind == "record" && sessionEntry.moduleID == "son")
        let upsert = try APIClient.decoder.decode(ModuleRecordUpsert.self, from: sessionEntry.payload)
        #expect(upsert.deleted == nil)
        #expect(queued["record:son:favorite:rain"] != nil)
        #expect(queued["record:son:frequency"] != nil)
        // The payload is the record itself, times to the millisecond.
        #expect(upsert.payload?["id"] == .string(saved.id))
        #expect(upsert.payload?["endedAt"] == .string(OffsetTimestamp.utcMilliseconds(saved.endedAt)))

        try store.removeFavorite("rain", at: fixture.clock.now.addingTimeInterval(5))
        let removal = try APIClient.decoder.decode(ModuleRecordUpsert.self,
                                                   from: try #require(try fixture.queued()["record:son:favorite:rain"]).payload)
        #expect(removal.deleted == true)
    }

    @Test("a pulled session from another device appears in the statistics; a tombstone removes it")
    func pulledSessionMerges() throws {
        let fixture = try SonFixture()
        let other = session(at: Date(timeIntervalSince1970: 1_789_000_000), rating: 2)
        try fixture.pull([try pulledRecord(other, at: other.endedAt)])
        let stored = try fixture.store.sessions()
        #expect(stored.map(\.id) == [other.id])
        #expect(stored.first?.rating == 2)

        try fixture.pull([pulledTombstone(ListeningSession.self, id: other.id, at: other.endedAt.addingTimeInterval(60))])
        #expect(try fixture.store.sessions().isEmpty)
    }

    @Test("the newer version wins: an older pulled session does not overwrite a newer local one")
    func newestWins() throws {
        let fixture = try SonFixture()
        let store = fixture.store
        var local = session(at: fixture.clock.now, rating: 1)
        try store.save(local)
        local.rating = 7
        try fixture.pull([try pulledRecord(local, at: fixture.clock.now.addingTimeInterval(-3600))])
        #expect(try store.sessions().first?.rating == 1)
        try fixture.pull([try pulledRecord(local, at: fixture.clock.now.addingTimeInterval(3600))])
        #expect(try store.sessions().first?.rating == 7)
        // An old tombstone does not delete a session changed after it.
        try fixture.pull([pulledTombstone(ListeningSession.self, id: local.id, at: fixture.clock.now.addingTimeInterval(-1))])
        #expect(try store.sessions().count == 1)
    }

    @Test("favourites and the tinnitus frequency merge the same way")
    func favouritesAndFrequency() throws {
        let fixture = try SonFixture()
        let later = fixture.clock.now.addingTimeInterval(600)
        try fixture.pull([
            try pulledRecord(FavoriteSound(sound: "surf", addedAt: later, updatedAt: later), at: later),
            try pulledRecord(TinnitusFrequency(hz: 6000, updatedAt: later), at: later),
        ])
        #expect(try fixture.store.favorites() == ["surf"])
        #expect(try TinnitusFrequency.stored(in: fixture.context) == 6000)
        // A local change made after the pulled one is kept.
        fixture.clock.advance(by: 3600)
        _ = try TinnitusFrequency.store("4000", in: fixture.context)
        try fixture.pull([try pulledRecord(TinnitusFrequency(hz: 8000, updatedAt: later), at: later)])
        #expect(try TinnitusFrequency.stored(in: fixture.context) == 4000)
        try fixture.pull([pulledTombstone(FavoriteSound.self, id: "surf", at: later.addingTimeInterval(1))])
        #expect(try fixture.store.favorites().isEmpty)
    }

    @Test("two devices' changes within one second are told apart by their milliseconds")
    func sameSecond() throws {
        let fixture = try SonFixture()
        let added = Date(timeIntervalSince1970: 1_800_000_000.200)
        try fixture.pull([try pulledRecord(FavoriteSound(sound: "rain", addedAt: added, updatedAt: added), at: added)])
        #expect(try fixture.store.favorites() == ["rain"])
        // Removed on another device 0.5 s later, in the same second.
        try fixture.pull([pulledTombstone(FavoriteSound.self, id: "rain", at: added.addingTimeInterval(0.5))])
        #expect(try fixture.store.favorites().isEmpty)
        #expect(RecordTime.isNewer(added.addingTimeInterval(0.001), than: added))
        #expect(!RecordTime.isNewer(added.addingTimeInterval(0.0004), than: added))
    }
}

@Suite("Tinnitus profile questionnaire", .timeLimit(.minutes(10)))
struct TinnitusProfileTests {
    @Test("the bundled profile is a valid core questionnaire with single, multiple choice and free text")
    func definition() throws {
        let definition = try TinnitusProfile.definition()
        #expect(QuestionnaireValidator.validate(definition).isEmpty)
        let types = Set(definition.items.map(\.element.typeName))
        #expect(types.isSuperset(of: ["singleChoice", "multipleChoice", "freeText"]))
    }

    @Test("choosing the chosen single answer again clears it; multiple choice toggles; the percentage follows")
    func toggling() throws {
        var form = QuestionnaireForm(definition: try TinnitusProfile.definition())
        let questions = form.questions
        #expect(form.percentComplete == 0)
        let single = try #require(questions.first { $0.element.typeName == "singleChoice" })
        let multiple = try #require(questions.first { $0.element.typeName == "multipleChoice" })
        let text = try #require(questions.first { $0.element.typeName == "freeText" })

        try TinnitusProfile.apply("1", to: single, in: &form)
        #expect(form.answers[single.label] == .integer(1))
        #expect(form.percentComplete == 100 / questions.count)
        try TinnitusProfile.apply("2", to: single, in: &form)
        #expect(form.answers[single.label] == .integer(2))
        try TinnitusProfile.apply("2", to: single, in: &form)
        #expect(!form.isAnswered(single.label))

        try TinnitusProfile.apply("0 2", to: multiple, in: &form)
        #expect(form.answers[multiple.label] == .choices([0, 2]))
        try TinnitusProfile.apply("0", to: multiple, in: &form)
        #expect(form.answers[multiple.label] == .choices([2]))
        // A bad number in the list changes nothing at all.
        #expect(throws: UNITIError.self) { try TinnitusProfile.apply("1 99", to: multiple, in: &form) }
        #expect(form.answers[multiple.label] == .choices([2]))

        try TinnitusProfile.apply("worse after concerts", to: text, in: &form)
        #expect(form.answers[text.label] == .text("worse after concerts"))
        try TinnitusProfile.apply("-", to: text, in: &form)
        #expect(!form.isAnswered(text.label))
    }

    @Test("every change is stored at once and queued as a son record; another device's newer answers win")
    func storedAndSynced() throws {
        let fixture = try SonFixture()
        var form = try TinnitusProfile.load(fixture.context)
        let first = form.questions[0]
        try form.choose(0, for: first.label)
        try TinnitusProfile.save(form, fixture.context)
        #expect(try TinnitusProfile.load(fixture.context).answers[first.label] == .integer(0))
        #expect(try fixture.queued()["record:son:form:son-tinnitus-profile"] != nil)

        let newer = QuestionnaireFormRecord(questionnaireID: TinnitusProfile.questionnaireID, questionnaireVersion: 1,
                                            answers: [first.label: .integer(3)])
        try fixture.pull([try pulledRecord(newer, at: fixture.clock.now.addingTimeInterval(60))])
        #expect(try TinnitusProfile.load(fixture.context).answers[first.label] == .integer(3))
    }
}

@Suite("Sound catalogue from the server", .timeLimit(.minutes(10)))
struct ServerCatalogueTests {
    static func catalogue(version: Int, extraSound: String = "extra-noise", kind: String = "noise") -> Data {
        Data("""
        {"version": \(version), "categories": [{"id": "noise", "title": {"en": "Noise", "de": "Rauschen"}, "sounds": [
          {"id": "\(extraSound)", "title": {"en": "Extra", "de": "Extra"}, "kind": "\(kind)", "parameters": {"color": "pink"}, "length": 60}]}]}
        """.utf8)
    }

    @Test("a newer valid catalogue becomes the active one; an older one does not")
    func newerWins() throws {
        let fixture = try SonFixture()
        let bundled = try SoundCatalogue.bundled()
        try fixture.database.writer.write { db in try SoundCatalogue.acceptFromServer(Self.catalogue(version: bundled.version), receivedAt: fixture.clock.now, in: db) }
        #expect(try SoundCatalogue.active(in: fixture.database).version == bundled.version)
        #expect(try SoundCatalogue.activeSource(in: fixture.database).source == "bundled")
        try fixture.database.writer.write { db in try SoundCatalogue.acceptFromServer(Self.catalogue(version: bundled.version + 1), receivedAt: fixture.clock.now, in: db) }
        let active = try SoundCatalogue.active(in: fixture.database)
        #expect(active.version == bundled.version + 1)
        #expect(active.sounds.map(\.id) == ["extra-noise"])
    }

    @Test("a broken catalogue is refused with one line, and the previous one stays")
    func brokenRefused() throws {
        let fixture = try SonFixture()
        let bundled = try SoundCatalogue.bundled()
        try fixture.database.writer.write { db in try SoundCatalogue.acceptFromServer(Self.catalogue(version: bundled.version + 1), receivedAt: fixture.clock.now, in: db) }
        for broken in [Data("{\"version\": 9}".utf8), Self.catalogue(version: bundled.version + 2, kind: "fm-sweep")] {
            do {
                try fixture.database.writer.write { db in try SoundCatalogue.acceptFromServer(broken, receivedAt: fixture.clock.now, in: db) }
                Issue.record("a broken catalogue was accepted")
            } catch let error as UNITIError {
                #expect(error.message.hasPrefix("the sound catalogue from the server was not taken over"))
                #expect(!error.message.contains("\n"))
            }
        }
        #expect(try SoundCatalogue.active(in: fixture.database).version == bundled.version + 1)
    }
}
