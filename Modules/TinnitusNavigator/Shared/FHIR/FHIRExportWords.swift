/// The words a FHIR export of the health record writes into its resources (titles of codes,
/// kinds, ears), looked up by string-table key with `{name}` values filled in.
///
/// The mapping is shared by the shell (`tn export --fhir`) and the server's portal (`/data/fhir`),
/// which look words up differently: the shell through its localizer in the person's language,
/// the portal in the page's language. Both read the same keys of the shared tables
/// (`tn.export.*`, `tn.ear.*`, `tn.event.type.*`, `tn.therapy.type.*`), so a bundle says the
/// same whichever side wrote it.
public struct FHIRExportWords: Sendable {
    private let lookup: @Sendable (_ key: String, _ values: [String: String]) -> String

    public init(_ lookup: @escaping @Sendable (_ key: String, _ values: [String: String]) -> String) {
        self.lookup = lookup
    }

    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        lookup(key, values)
    }

    func ear(_ ear: Ear) -> String { lookup("tn.ear.\(ear.rawValue)", [:]) }
    func eventKind(_ kind: HealthEvent.Kind) -> String { lookup("tn.event.type.\(kind.rawValue)", [:]) }
    func therapyKind(_ kind: Therapy.Kind) -> String { lookup("tn.therapy.type.\(kind.rawValue)", [:]) }
}
