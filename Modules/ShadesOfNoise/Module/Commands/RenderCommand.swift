import ArgumentParser
import Foundation
import UNITICore

/// `son render SOUND --minutes N --out FILE.wav [--seed S]`: writes N minutes of a sound into
/// a WAV file, with no player, no rating and no session: for preparing files to take along,
/// and for measuring the generators (Scripts/bench/noise). Streams in constant memory.
struct RenderCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "render", abstract: L("son.render.abstract"))
    }

    @Argument(help: ArgumentHelp(L("son.play.soundHelp"), valueName: "sound")) var sound: String
    @Option(help: ArgumentHelp(L("son.render.minutesHelp"), valueName: "minutes")) var minutes: Double
    @Option(help: ArgumentHelp(L("son.render.outHelp"), valueName: "file.wav")) var out: String
    @Option(help: ArgumentHelp(L("son.play.seedHelp"), valueName: "number")) var seed: UInt64?

    func run(in context: ModuleContext) throws {
        guard minutes > 0, minutes <= 24 * 60 else {
            throw UNITIError(L("son.render.badMinutes", ["value": CurrentLanguage.value.number(minutes)]))
        }
        let entry = try SoundCatalogue.active(in: context.database).sound(sound)
        let recipe = try entry.recipe(tinnitusFrequency: TinnitusFrequency.stored(in: context))
        let generator = try SoundGenerator(recipe: recipe, seed: seed ?? entry.defaultSeed)
        let sink = try WAVFileSink(path: out, format: generator.format)
        var remaining = generator.format.frames(seconds: minutes * 60)
        let channels = generator.format.channels
        var buffer = [Int16](repeating: 0, count: SessionRunner.blockFrames * channels)
        Interrupt.reset()
        try buffer.withUnsafeMutableBufferPointer { buffer in
            while remaining > 0, !Interrupt.isRequested {
                let frames = min(remaining, SessionRunner.blockFrames)
                let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(frames * channels)])
                generator.render(into: block)
                try sink.write(UnsafeBufferPointer(block))
                remaining -= frames
            }
        }
        try sink.finish()
        context.console.line(L("son.render.done", [
            "title": entry.displayTitle, "time": formatDuration(Double(sink.framesWritten) / Double(generator.format.sampleRate)),
            "path": out,
        ]))
    }
}
