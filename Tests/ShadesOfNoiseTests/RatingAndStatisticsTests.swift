import Foundation
import Testing
@testable import ShadesOfNoise
import UNITICore

/// An input that claims to be a terminal, with answers given up front.
final class TerminalInput: LineInput, @unchecked Sendable {
    private var lines: [String]
    init(_ lines: [String]) { self.lines = lines }
    var isInteractive: Bool { true }
    func readLine(prompt: String) throws -> String? { lines.isEmpty ? nil : lines.removeFirst() }
}

/// Answers "input is ready" or "nothing came" without waiting, and notes the timeout asked for.
final class FakeWaiter: AnswerWaiter, @unchecked Sendable {
    let answers: Bool
    private(set) var timeouts: [TimeInterval] = []
    init(answers: Bool) { self.answers = answers }
    func waitForInput(seconds: TimeInterval) -> Bool {
        timeouts.append(seconds)
        return answers
    }
}

@Suite("CGI rating", .timeLimit(.minutes(10)))
struct RatingTests {
    @Test("unanswered for 30 seconds, the question closes as timed out")
    func timesOut() throws {
        let (console, output) = Console.capturing()
        let waiter = FakeWaiter(answers: false)
        let outcome = try RatingPrompt(input: TerminalInput(["3"]), console: console, waiter: waiter).ask()
        #expect(outcome == .timedOut)
        #expect(waiter.timeouts == [30])
        #expect(output.out.contains("very much worse"))
    }

    @Test("an answer 1 to 7 rates, 0 declines, a wrong answer is asked again")
    func answers() throws {
        let (console, output) = Console.capturing()
        let waiter = FakeWaiter(answers: true)
        #expect(try RatingPrompt(input: TerminalInput(["9", "2"]), console: console, waiter: waiter).ask() == .rated(2))
        #expect(output.err.contains("'9'"))
        #expect(try RatingPrompt(input: TerminalInput(["0"]), console: console, waiter: waiter).ask() == .declined)
        // In a script the answer simply follows; end of input counts as unanswered.
        #expect(try RatingPrompt(input: ScriptedInput(["7"]), console: console, waiter: waiter).ask() == .rated(7))
        #expect(try RatingPrompt(input: ScriptedInput([]), console: console, waiter: waiter).ask() == .timedOut)
    }

    @Test("--rating accepts 1 to 7 and none")
    func ratingOption() throws {
        #expect(try CGIRating.parseOption("1") == .rated(1))
        #expect(try CGIRating.parseOption("none") == .declined)
        #expect(throws: UNITIError.self) { try CGIRating.parseOption("8") }
    }
}

@Suite("Listening statistics", .timeLimit(.minutes(10)))
struct StatisticsTests {
    func session(_ sound: String, minutes: Double, _ outcome: RatingOutcome, at offset: Double) -> ListeningSession {
        let start = Date(timeIntervalSince1970: 1_700_000_000 + offset)
        return ListeningSession(sound: sound, startedAt: start, endedAt: start.addingTimeInterval(minutes * 60),
                                listenedSeconds: minutes * 60, loop: nil, outcome: outcome, output: "file")
    }

    var sessions: [ListeningSession] {
        [session("rain", minutes: 10, .rated(2), at: 0),
         session("rain", minutes: 5, .rated(5), at: 100),
         session("rain", minutes: 1, .timedOut, at: 200),
         session("pink", minutes: 2, .rated(1), at: 300),
         session("pink", minutes: 2, .declined, at: 400)]
    }

    let catalogue = [(id: "pink", title: "Pink noise"), (id: "rain", title: "Rain"), (id: "wind", title: "Wind")]

    @Test("per sound: plays, ratings, mean of 1–7 answers only, total time")
    func perSound() {
        let stats = ListeningStatistics(sessions: sessions, catalogue: catalogue)
        let rain = stats.perSound.first { $0.sound == "rain" }!
        #expect(rain.plays == 3)
        #expect(rain.ratings == 2)
        #expect(rain.meanRating == 3.5)
        #expect(rain.listenedSeconds == 16 * 60)
        let wind = stats.perSound.first { $0.sound == "wind" }!
        #expect(wind.plays == 0 && wind.meanRating == nil)
    }

    @Test("sorting by name, plays, rating (lower is better, unrated last) and time")
    func sorting() {
        let stats = ListeningStatistics(sessions: sessions, catalogue: catalogue)
        #expect(stats.sorted(by: .name).map(\.sound) == ["pink", "rain", "wind"])
        #expect(stats.sorted(by: .plays).map(\.sound) == ["rain", "pink", "wind"])
        #expect(stats.sorted(by: .rating).map(\.sound) == ["pink", "rain", "wind"])
        #expect(stats.sorted(by: .time).map(\.sound) == ["rain", "pink", "wind"])
    }

    @Test("sessions are stored and read back newest first")
    func storage() throws {
        let fixture = try SonFixture()
        let store = fixture.store
        for session in sessions { try store.save(session) }
        let newest = try store.sessions(limit: 5)
        #expect(newest.count == 5)
        #expect(newest.first?.sound == "pink" && newest.first?.ending == "declined")
        #expect(try store.sessions().last?.rating == 2)
        #expect(try store.addFavorite("rain", at: Date()))
        #expect(try !store.addFavorite("rain", at: Date()))
        #expect(try store.favorites() == ["rain"])
        #expect(try store.removeFavorite("rain", at: Date()))
        #expect(try !store.removeFavorite("rain", at: Date()))
    }
}

@Suite("Sound catalogue", .timeLimit(.minutes(10)))
struct CatalogueTests {
    @Test("the bundled catalogue lists every kind, and every sound builds with a frequency set")
    func bundled() throws {
        let catalogue = try SoundCatalogue.bundled()
        #expect(catalogue.sounds.count >= 15)
        for sound in catalogue.sounds {
            _ = try sound.recipe(tinnitusFrequency: 4000)
        }
        #expect(catalogue.sounds.filter(\.synthesized).count >= 4)
    }

    @Test("sounds tuned to the tinnitus frequency ask for it first")
    func needsFrequency() throws {
        let catalogue = try SoundCatalogue.bundled()
        #expect(throws: UNITIError.self) { try catalogue.sound("notched-pink").recipe(tinnitusFrequency: nil) }
        #expect(throws: UNITIError.self) { try catalogue.sound("no-such-sound") }
    }

    @Test("a new kind in the catalogue is listed but refused when played")
    func unknownKind() throws {
        let json = """
        {"version": 1, "categories": [{"id": "x", "title": "X", "sounds": [
          {"id": "hum", "title": {"en": "Hum", "de": "Brummen"}, "kind": "fm-sweep", "parameters": {}, "length": 30}]}]}
        """
        let catalogue = try SoundCatalogue.decode(Data(json.utf8))
        #expect(throws: UNITIError.self) { try catalogue.sound("hum").recipe(tinnitusFrequency: 1000) }
    }
}
