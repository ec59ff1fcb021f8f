import Foundation
import Mustache

/// The portal's pages: the mustache templates shipped in `Resources/Portal`, parsed once.
///
/// Every page inherits `layout` (`{{<layout}}`) and fills its `title` and `main` blocks with the
/// values of its view model (``PortalPage``) and the layout's (``PortalLayout``). Values
/// reach HTML only through `{{ }}`, which escapes `& < > " '`; no template may use `{{{ }}}` or
/// `{{& }}` (a test reads them all), so escaping is never a page's own job.
struct PortalTemplates: Sendable {
    let library: MustacheLibrary
    let styleSheet: Data
    /// `portal.js`: the little script the questionnaire pages load (no page needs it to work).
    let script: Data

    /// The folder of the shipped templates.
    static var directory: URL? { Bundle.module.url(forResource: "Portal", withExtension: nil) }

    /// The server's templates and those of the module parts (``ServerModulePart/portalTemplates``),
    /// or the error saying which failed. Parsed once per router (``PortalRoutes/templates``),
    /// which also serves the style sheet and script from them.
    static func with(_ modules: ServerModules) -> Result<PortalTemplates, PortalTemplateError> {
        guard let directory else { return .failure(PortalTemplateError("the portal templates are missing from the bundle")) }
        return Result { try PortalTemplates(directory: directory, more: modules.parts.compactMap(\.portalTemplates)) }
            .mapError { $0 as? PortalTemplateError ?? PortalTemplateError("\($0)") }
    }

    /// The templates of `directory` (with the style sheet and script) and of the folders in `more`.
    init(directory: URL, more: [URL] = []) throws {
        var library = MustacheLibrary()
        var names: Set<String> = []
        for folder in [directory] + more {
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            for file in files where file.pathExtension == "mustache" {
                let name = file.deletingPathExtension().lastPathComponent
                guard names.insert(name).inserted else { throw PortalTemplateError("portal template \(name) is shipped twice") }
                do {
                    try library.register(String(contentsOf: file, encoding: .utf8), named: name)
                } catch {
                    throw PortalTemplateError("portal template \(name) does not parse: \(error)")
                }
            }
        }
        self.library = library
        styleSheet = try Data(contentsOf: directory.appendingPathComponent("portal.css"))
        script = try Data(contentsOf: directory.appendingPathComponent("portal.js"))
    }

    /// The page in its layout (the portal's ``PortalLayout``, the console's ``ConsoleLayout``);
    /// throws when there is no template of the page's name.
    func render<Page: PortalPage, Layout: Sendable>(_ page: Page, _ layout: Layout) throws -> String {
        guard let html = library.render(PortalDocument(shared: layout, page: page), withTemplate: page.template) else {
            throw PortalTemplateError("no portal template named \(page.template)")
        }
        return html
    }
}

struct PortalTemplateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
