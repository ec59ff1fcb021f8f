import ArgumentParser
import Foundation
import UNITICore

/// `son play SOUND [--minutes 1|2|5|10|unlimited] [--out FILE.wav] [--rating 1..7|none]`:
/// plays a sound through the audio device (or renders it into a WAV file), then asks the CGI
/// rating and stores the session (FA04–FA10).
struct PlayCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "play", abstract: L("son.play.abstract"))
    }

    @Argument(help: ArgumentHelp(L("son.play.soundHelp"), valueName: "sound")) var sound: String
    @Option(help: ArgumentHelp(L("son.play.minutesHelp"), valueName: "1|2|5|10|unlimited"),
            completion: .list(["1", "2", "5", "10", "unlimited"])) var minutes: String?
    @Option(help: ArgumentHelp(L("son.play.outHelp"), valueName: "file.wav")) var out: String?
    @Option(help: ArgumentHelp(L("son.play.ratingHelp"), valueName: "1..7|none"),
            completion: .list((1...7).map(String.init) + ["none"])) var rating: String?
    @Option(help: ArgumentHelp(L("son.play.deviceHelp"), valueName: "name")) var device: String?
    @Option(help: ArgumentHelp(L("son.play.seedHelp"), valueName: "number")) var seed: UInt64?

    func run(in context: ModuleContext) throws {
        let catalogue = try SoundCatalogue.active(in: context.database)
        let sound = try catalogue.sound(self.sound)
        let loop = try minutes.map(LoopDuration.init(parsing:))
        let preset = try rating.map(CGIRating.parseOption)
        if loop == .unlimited, out != nil {
            throw UNITIError(L("son.play.unlimitedToFile"))
        }
        let recipe = try sound.recipe(tinnitusFrequency: TinnitusFrequency.stored(in: context))
        let generator = try SoundGenerator(recipe: recipe, seed: seed ?? sound.defaultSeed)
        let sink = try AudioOutput.open(outputPath: out, device: device, format: generator.format)

        let started = context.clock.now
        let audioClock = out == nil ? nil
            : AudioTimeClock(start: started, sampleRate: generator.format.sampleRate, timeZone: context.clock.timeZone)
        let engine = PlayerEngine(lengthSeconds: sound.length, sampleRate: generator.format.sampleRate,
                                  clock: audioClock ?? context.clock)
        engine.setLoop(loop)
        let console = context.console
        console.line(L("son.play.start", [
            "title": sound.displayTitle, "length": formatDuration(sound.length),
            "loop": loop.map { $0 == .unlimited ? L("son.loop.unlimited") : L("son.loop.minutes", ["minutes": $0.storedValue]) }
                ?? L("son.loop.none"),
        ]))
        Interrupt.reset()
        engine.play()
        do {
            if out == nil, console.isTerminal, context.input.isInteractive {
                // A person at a terminal gets the player view with its keys.
                try TerminalPlayerView(title: sound.displayTitle, console: console)
                    .run(engine: engine, source: generator, sink: sink)
            } else {
                try SessionRunner.run(engine: engine, source: generator, sink: sink, audioClock: audioClock)
            }
        } catch {
            try? sink.finish()
            throw error
        }
        // Closing a file patches its header: a failure here is reported, not swallowed.
        try sink.finish()
        Interrupt.reset()
        try finishSession(sound: sound, engine: engine, loop: loop, started: started,
                          ended: audioClock?.now ?? context.clock.now, preset: preset, in: context)
    }

    /// Asks the rating (unless given) and stores the session, when anything was played.
    func finishSession(sound: SoundCatalogue.Sound, engine: PlayerEngine, loop: LoopDuration?, started: Date,
                       ended: Date, preset: RatingOutcome?, in context: ModuleContext) throws {
        let listened = engine.timer.listenedSeconds
        guard engine.hasPlayed, listened > 0 else {
            context.console.line(L("son.play.nothingPlayed"))
            return
        }
        let outcome: RatingOutcome
        if let preset {
            outcome = preset
        } else {
            do {
                outcome = try RatingPrompt(input: context.input, console: context.console,
                                           waiter: StandardInputWaiter()).ask()
            } catch is PromptCancelled {
                outcome = .declined
            }
        }
        let session = ListeningSession(sound: sound.id, startedAt: started, endedAt: ended, listenedSeconds: listened,
                                       loop: loop, outcome: outcome, output: out == nil ? "device" : "file")
        try SonStore(records: context.records).save(session)
        let ratingText: String
        switch outcome {
        case .rated(let value): ratingText = CGIRating.label(value)
        case .declined: ratingText = L("son.cgi.none")
        case .timedOut: ratingText = L("son.cgi.timedOutShort")
        }
        context.console.line(L(out == nil ? "son.play.done" : "son.play.doneFile", [
            "title": sound.displayTitle, "time": formatDuration(listened), "rating": ratingText, "path": out ?? "",
        ]))
    }
}
