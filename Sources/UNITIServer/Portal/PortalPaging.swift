import Foundation
import Hummingbird

/// One page of a list the portal shows (`?page=N`, ``size`` entries, newest first): the sheets on
/// `/data` and each kind of health-record entry. No list page grows with the person's data; a
/// page number past the end shows the last page, and one below 1 the first.
///
/// The template side is the `pager` partial, fed by ``pager(path:language:)``.
package struct PortalPaging {
    package static let size = 50

    /// The page shown, from 1.
    package let number: Int
    /// How many pages the list has (at least 1, also for an empty list).
    package let pages: Int

    /// The page a request asks for, clamped to the list's `total` entries.
    package init(_ request: Request, total: Int) {
        self.init(requested: Self.requested(request), total: total)
    }

    package init(requested: Int, total: Int) {
        pages = max(1, (total + Self.size - 1) / Self.size)
        number = min(max(requested, 1), pages)
    }

    /// The number in `?page=`, 1 when absent or not a number.
    package static func requested(_ request: Request) -> Int {
        request.uri.queryParameters.get("page").flatMap { Int($0) } ?? 1
    }

    /// The first entry's position in the whole list.
    package var offset: Int { (number - 1) * Self.size }

    /// This page's entries of a list already in its order.
    package func slice<Entry>(_ entries: [Entry]) -> ArraySlice<Entry> {
        entries.dropFirst(offset).prefix(Self.size)
    }

    /// The `pager` partial's values: nil for a list that fits one page (the partial shows nothing).
    package func pager(path: String, language: String) -> Pager? {
        guard pages > 1 else { return nil }
        return Pager(text: PortalText.text("portal.paging.page", language, ["page": "\(number)", "pages": "\(pages)"]),
                     newer: number > 1 ? "\(path)?page=\(number - 1)" : nil,
                     older: number < pages ? "\(path)?page=\(number + 1)" : nil)
    }

    /// What the `pager` partial shows as `paging`: where the page stands and the links to the
    /// pages beside it.
    package struct Pager: Sendable {
        var text: String
        var newer: String?
        var older: String?
    }
}
