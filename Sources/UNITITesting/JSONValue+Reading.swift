import UNITIProtocol

/// Reading exported JSON in tests.
extension JSONValue {
    public var arrayItems: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// Every value of `key` anywhere below this value.
    public func all(_ key: String) -> [JSONValue] {
        switch self {
        case .object(let members):
            return (members[key].map { [$0] } ?? []) + members.values.flatMap { $0.all(key) }
        case .array(let items):
            return items.flatMap { $0.all(key) }
        default:
            return []
        }
    }
}
