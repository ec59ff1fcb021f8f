import Foundation

/// The files of a target's `Resources` folder, compiled into the program at build time (the
/// GeneratedSourcesPlugin writes one value per target, `compiledResources`).
///
/// Why compiled in and not looked up beside the executable: a program copied anywhere (`~/bin`,
/// `/usr/local/bin`, a package, a container) then carries everything it needs, so there is no
/// install layout to get wrong and no start-up that reads, finds or parses a file. The files are
/// small text (questionnaires, the default study, the sound catalogue, which describes generated
/// sounds rather than holding recordings, templates, the OpenAPI document: about 210 KB in all),
/// so the binaries grow by that much and no more. The JSON, mustache and YAML files stay the
/// source people edit; a change to them is picked up by the next build.
public struct CompiledResources: Sendable {
    /// One file: its path inside the folder (`Questionnaires/tyt-momentary.json`) and its text.
    public struct File: Sendable {
        public let path: String
        public let text: String

        public init(path: String, text: String) {
            self.path = path
            self.text = text
        }

        public var data: Data { Data(text.utf8) }
    }

    /// Where the files come from in the repository (`Configurations/Resources`), for messages.
    public let origin: String
    /// The files, sorted by path.
    public let files: [File]

    public init(origin: String, files: [File]) {
        self.origin = origin
        self.files = files.sorted { $0.path < $1.path }
    }

    /// The bytes of the file at `path`, or nil when this build has no such file.
    public func data(_ path: String) -> Data? {
        files.first { $0.path == path }?.data
    }

    /// The bytes of the file at `path`; a build without it throws ``MissingResource``, naming it.
    public func required(_ path: String) throws(MissingResource) -> Data {
        guard let data = data(path) else { throw MissingResource(path: origin + "/" + path) }
        return data
    }

    /// The files directly inside `folder` (`Questionnaires`), as a folder of their own whose
    /// paths are relative to it.
    public func folder(_ folder: String) -> CompiledResources {
        let prefix = folder + "/"
        return CompiledResources(origin: origin + "/" + folder, files: files.compactMap { file in
            guard file.path.hasPrefix(prefix) else { return nil }
            let rest = String(file.path.dropFirst(prefix.count))
            guard !rest.contains("/") else { return nil }
            return File(path: rest, text: file.text)
        })
    }
}

/// A file the program needs that this build does not contain: a program built from a tree that
/// lacked it. Said in one line naming the file, never a crash.
public struct MissingResource: Error, CustomStringConvertible, Sendable {
    /// The file's path in the repository (`Sources/UNITIServer/Resources/openapi.yaml`).
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public var description: String { "this build of the program lacks \(path); build it again from a complete source tree" }
}
