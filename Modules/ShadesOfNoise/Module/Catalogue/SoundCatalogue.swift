import Foundation
import GRDB
import UNITIConfigurations
import UNITICore
import UNITIProtocol

/// The sounds the player offers, grouped in categories, read from `sounds.json` (bundled under
/// `Configurations/Resources`). Adding a sound or a category is an edit of that file: each
/// entry names a `kind` the audio service can synthesize and its parameters (Shades Of Noise
/// thesis, FA02/FA03: sounds browsed by category).
public struct SoundCatalogue: Codable, Sendable {
    public let version: Int
    public let categories: [Category]

    public struct Category: Codable, Sendable {
        public let id: String
        public let title: LocalizedText
        public let sounds: [Sound]
    }

    public struct Sound: Codable, Sendable, Hashable {
        public let id: String
        public let title: LocalizedText
        /// noise, notched, narrow-band, modulated-noise, modulated-tone, tone, texture.
        public let kind: String
        public let parameters: Parameters
        /// Length of one pass in seconds: the player's time line, and what a loop repeats.
        public let length: Double
        /// True for textures: synthesized imitations of natural sounds, not recordings.
        public var synthesized: Bool { kind == "texture" }
        /// Whether the sound depends on the person's tinnitus frequency.
        public var usesTinnitusFrequency: Bool { ["notched", "narrow-band", "tone", "modulated-tone"].contains(kind) }
    }

    public struct Parameters: Codable, Sendable, Hashable {
        public var color: String?
        public var base: String?
        public var texture: String?
        public var depth: Double?
        public var rate: Double?
    }

    /// The bundled catalogue.
    public static func bundled() throws -> SoundCatalogue {
        guard let data = BundledConfiguration.data("sounds.json") else {
            throw UNITIError(L("son.catalogue.missing"))
        }
        return try decode(data)
    }

    /// The catalogue to use: the newest valid one, the bundled or the one the server offered
    /// last (`son_catalogue`, see ``acceptFromServer(_:in:)``), by version; the bundled one on a tie.
    public static func active(in database: AppDatabase) throws -> SoundCatalogue {
        let bundled = try bundled()
        let stored = try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT content FROM son_catalogue WHERE name = ?", arguments: [serverResourceName])
        }
        guard let stored, let server = try? checked(Data(stored.utf8)), server.version > bundled.version else { return bundled }
        return server
    }

    /// Where the catalogue came from, and its version (for `son sounds`).
    public static func activeSource(in database: AppDatabase) throws -> (source: String, version: Int) {
        let catalogue = try active(in: database)
        return (catalogue.version > (try bundled()).version ? "server" : "bundled", catalogue.version)
    }

    /// The name of the catalogue among the module's server resources (`resources/son/sounds`).
    public static let serverResourceName = "sounds"

    /// Checks a catalogue from the server and keeps it, in the sync's transaction; a catalogue
    /// that cannot be used throws with the reason, and the previous one stays.
    public static func acceptFromServer(_ data: Data, receivedAt date: Date, in db: Database) throws {
        let catalogue: SoundCatalogue
        do {
            catalogue = try checked(data)
        } catch let error as UNITIError {
            throw UNITIError(L("son.catalogue.serverRefused", ["reason": error.message]))
        }
        try db.execute(sql: """
            INSERT INTO son_catalogue(name, version, content, receivedAt) VALUES (?, ?, ?, ?)
            ON CONFLICT(name) DO UPDATE SET version = excluded.version, content = excluded.content, receivedAt = excluded.receivedAt
            """, arguments: [serverResourceName, catalogue.version, String(decoding: data, as: UTF8.self), date])
    }

    /// Decodes a catalogue and checks that the player can build every sound in it (kinds and
    /// parameters this version knows); any frequency will do for the check.
    public static func checked(_ data: Data) throws -> SoundCatalogue {
        let catalogue = try decode(data)
        guard !catalogue.sounds.isEmpty else { throw UNITIError(L("son.catalogue.empty")) }
        for sound in catalogue.sounds {
            _ = try sound.recipe(tinnitusFrequency: 1000)
        }
        return catalogue
    }

    public static func decode(_ data: Data) throws -> SoundCatalogue {
        do {
            let catalogue = try JSONDecoder().decode(SoundCatalogue.self, from: data)
            var seen = Set<String>()
            for sound in catalogue.categories.flatMap(\.sounds) {
                guard seen.insert(sound.id).inserted else {
                    throw UNITIError(L("son.catalogue.duplicate", ["sound": sound.id]))
                }
                guard sound.length > 0 else {
                    throw UNITIError(L("son.catalogue.badLength", ["sound": sound.id]))
                }
            }
            return catalogue
        } catch let error as UNITIError {
            throw error
        } catch {
            throw UNITIError(L("son.catalogue.invalid", ["reason": "\(error)"]))
        }
    }

    public var sounds: [Sound] { categories.flatMap(\.sounds) }

    /// The sound with `id`; the error names the closest id.
    public func sound(_ id: String) throws -> Sound {
        if let sound = sounds.first(where: { $0.id == id }) { return sound }
        let ids = sounds.map(\.id)
        let close = ids.filter { $0.hasPrefix(id) || $0.contains(id) }
        throw UNITIError(L("son.sound.unknown", [
            "sound": id, "known": (close.isEmpty ? ids : close).joined(separator: ", "),
        ]))
    }
}

extension SoundCatalogue.Sound {
    /// The title in the current language, marked as synthesized where it imitates nature.
    public var displayTitle: String {
        let text = title.text(in: CurrentLanguage.value.rawValue)
        return synthesized ? L("son.sound.synthesized", ["title": text]) : text
    }

    /// What the audio service should synthesize; `frequency` is the person's tinnitus frequency.
    public func recipe(tinnitusFrequency frequency: Double?) throws -> SoundRecipe {
        func color(_ name: String?) throws -> NoiseColor {
            guard let name, let color = NoiseColor(rawValue: name) else {
                throw UNITIError(L("son.sound.badParameter", ["sound": id, "parameter": "color"]))
            }
            return color
        }
        func needFrequency() throws -> Double {
            guard let frequency else { throw UNITIError(L("son.frequency.needed", ["sound": id])) }
            return frequency
        }
        let depth = parameters.depth ?? 0.5
        let rate = parameters.rate ?? 10
        switch kind {
        case "noise": return .noise(try color(parameters.color))
        case "notched": return .notched(base: try color(parameters.base ?? "white"), centre: try needFrequency())
        case "narrow-band": return .narrowBand(centre: try needFrequency())
        case "modulated-noise": return .modulatedNoise(try color(parameters.color ?? "white"), rate: rate, depth: depth)
        case "modulated-tone": return .modulatedTone(frequency: try needFrequency(), rate: rate, depth: depth)
        case "tone": return .tone(frequency: try needFrequency())
        case "texture":
            guard let name = parameters.texture, let texture = NaturalTexture(rawValue: name) else {
                throw UNITIError(L("son.sound.badParameter", ["sound": id, "parameter": "texture"]))
            }
            return .texture(texture)
        default:
            throw UNITIError(L("son.sound.unsupportedKind", ["sound": id, "kind": kind]))
        }
    }

    /// A seed that depends on the sound only, so the same sound renders the same bytes.
    public var defaultSeed: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 // FNV-1a
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}
