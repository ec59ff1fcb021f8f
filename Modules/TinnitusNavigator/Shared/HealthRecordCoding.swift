import Foundation
import UNITIProtocol

/// Where the health record travels: module `tn`, one kind per entry type, client id
/// `<kind>:<id>` (the shell's `RecordAddress`), payloads written by ``RecordPayloadCoding`` as
/// every synced record is. A payload the portal writes is read by the shell and the other way
/// round; tests on both sides prove it.
public enum HealthRecordCoding {
    public static let moduleID = "tn"

    /// The client id of an entry on the wire.
    public static func clientID(kind: String, id: String) -> String { "\(kind):\(id)" }
}
