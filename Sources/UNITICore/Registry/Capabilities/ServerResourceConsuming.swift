import Foundation
import GRDB

/// A module that takes resources from the study server instead of its bundled copy (Shades Of
/// Noise's sound catalogue). Sync pulls each named resource from `resources/<id>/<name>` with its
/// ETag and hands new content to ``acceptServerResource(named:data:receivedAt:in:)``.
public protocol ServerResourceConsuming: UNITIModule {
    /// Names of the resources the server may hold newer versions of (`sounds`).
    var serverResources: [String] { get }
    /// Checks and keeps a resource received at `date`, inside the sync's transaction. A
    /// `UNITIError` says why the content cannot be used; the module then keeps what it had.
    func acceptServerResource(named name: String, data: Data, receivedAt date: Date, in db: Database) throws
}
