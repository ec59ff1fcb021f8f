/// A module's information pages (team, project, privacy, imprint, contact, ...), written in its
/// string table as `<id>.about.<topic>`. Track Your Tinnitus shows them under `about`, the
/// standalone Shades Of Noise under `settings`; both go through this one type.
public struct InformationPages: Sendable {
    public let owner: String
    public let topics: [String]

    public init(owner: String, topics: [String]) {
        self.owner = owner
        self.topics = topics
    }

    /// The text of a page; an unknown topic gets one line naming the pages there are.
    public func text(_ topic: String) throws -> String {
        let name = topic.lowercased()
        guard topics.contains(name) else {
            throw UNITIError(L("core.pages.unknown", ["topic": topic, "topics": topics.joined(separator: ", ")]))
        }
        return L("\(owner).about.\(name)")
    }
}
