import UNITICore

/// A command that takes a sound (`son play SOUND`): Tab offers the ids of the sound catalogue
/// in use (the bundled one, or the study server's).
protocol SoundArgument: ArgumentValuesOffering {}

extension SoundArgument {
    static func values(for argument: String, in context: ModuleContext) throws -> [String]? {
        guard argument == "sound" else { return nil }
        return try SoundCatalogue.active(in: context.database).categories.flatMap { $0.sounds.map(\.id) }
    }
}

extension PlayCommand: SoundArgument {}
extension RenderCommand: SoundArgument {}
extension FavoriteCommand.Add: SoundArgument {}

extension FavoriteCommand.Remove: ArgumentValuesOffering {
    /// Only a favourite can be removed: Tab offers the favourites.
    static func values(for argument: String, in context: ModuleContext) throws -> [String]? {
        argument == "sound" ? try SonStore(records: context.records).favorites() : nil
    }
}
