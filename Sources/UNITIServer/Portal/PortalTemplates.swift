import Foundation
import Mustache
import UNITIResources

/// The portal's pages: the mustache templates shipped in `Resources/Portal` (compiled into the
/// program), parsed once.
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

    /// The server's own templates, style sheet and script (`Resources/Portal`).
    static var shipped: CompiledResources { compiledResources.folder("Portal") }

    /// The server's templates and those of the module parts (``ServerModulePart/portalTemplates``),
    /// or the error saying which failed. Parsed once per router (``PortalRoutes/templates``),
    /// which also serves the style sheet and script from them.
    static func with(_ modules: ServerModules) -> Result<PortalTemplates, PortalTemplateError> {
        Result { try PortalTemplates(shipped, more: modules.parts(PortalPagesProviding.self).map(\.portalTemplates)) }
            .mapError { $0 as? PortalTemplateError ?? PortalTemplateError("\($0)") }
    }

    /// The templates of `folder` (with the style sheet and script) and of the folders in `more`.
    init(_ folder: CompiledResources, more: [CompiledResources] = []) throws {
        var library = MustacheLibrary()
        var names: Set<String> = []
        for templates in [folder] + more {
            for file in templates.files where file.path.hasSuffix(".mustache") {
                let name = String(file.path.dropLast(".mustache".count))
                guard names.insert(name).inserted else { throw PortalTemplateError("portal template \(name) is shipped twice") }
                do {
                    try library.register(String(decoding: file.data, as: UTF8.self), named: name)
                } catch {
                    throw PortalTemplateError("portal template \(name) does not parse: \(error)")
                }
            }
        }
        // Every page is drawn in it: without it no page could be shown.
        guard names.contains("layout") else { throw MissingResource(path: folder.origin + "/layout.mustache") }
        self.library = library
        styleSheet = try folder.required("portal.css")
        script = try folder.required("portal.js")
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
