import Foundation

/// A row as a Swift value whose coding keys are its table's columns (`startsAt` is `starts_at`;
/// a key spelled in snake_case is the column's name as it stands). The keys are listed once, so the
/// reads (``columns(of:)``, ``SQLRow/decode(_:prefix:)``) and the writes (``SQLColumns``) take
/// the columns from the same list, by name: a new column is one new key.
protocol StoreRecord: Codable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension StoreRecord {
    /// The columns in the keys' order, for a SELECT list: `table.column, …` when `table` is given,
    /// each `AS prefix_column` with a prefix (read back with ``SQLRow/decode(_:prefix:naming:)``).
    static func columns(of table: String? = nil, prefix: String = "") -> SQL {
        SQL(raw: CodingKeys.allCases.map { key in
            let column = SQLColumnNaming.snakeCase.column(key.stringValue)
            return (table.map { "\($0)." } ?? "") + column + (prefix.isEmpty ? "" : " AS \(prefix)\(column)")
        }.joined(separator: ", "))
    }
}

/// A value kept as JSON text (``JSONCoding``: sorted keys), read and written so by the row coders.
protocol SQLJSONColumn: Codable {}
extension Array: SQLJSONColumn where Element: Codable {}

/// How a coding key names its column: `startsAt` is `starts_at`, or the key as written.
enum SQLColumnNaming: Sendable {
    case snakeCase, asWritten

    func column(_ key: String) -> String {
        guard self == .snakeCase, key.contains(where: \.isUppercase) else { return key }
        return key.reduce(into: "") { name, character in
            if character.isUppercase, !name.isEmpty { name += "_" }
            name += character.lowercased()
        }
    }
}

/// Columns and their values by name, for `INSERT INTO t \(insert: columns)` and
/// `UPDATE t SET \(set: columns)`: nothing depends on the position of a value.
struct SQLColumns: Sendable {
    private(set) var names: [String] = []
    private(set) var values: [SQLValue] = []

    /// The columns of `record`, each from its coding key (as ``StoreRecord/columns(of:)`` lists
    /// them; an absent optional is NULL), except those `omitting` names (columns the store sets
    /// itself).
    init<Record: StoreRecord>(_ record: Record, omitting: [Record.CodingKeys] = []) throws {
        let encoder = SQLColumnsEncoder()
        try record.encode(to: encoder)
        let omitted = Set(omitting.map(\.stringValue))
        for key in Record.CodingKeys.allCases where !omitted.contains(key.stringValue) {
            set(SQLColumnNaming.snakeCase.column(key.stringValue), encoder.values[key.stringValue] ?? .null)
        }
    }

    /// Adds (or replaces) one column's value.
    mutating func set(_ name: String, _ value: (some SQLBindable)?) {
        let value = value?.sqlValue ?? .null
        if let index = names.firstIndex(of: name) { values[index] = value } else { names.append(name); self.values.append(value) }
    }
}

extension SQL.StringInterpolation {
    /// `(a, b) VALUES (…, …)`, each value bound.
    mutating func appendInterpolation(insert columns: SQLColumns) {
        appendInterpolation(raw: "(\(columns.names.joined(separator: ", "))) VALUES (")
        appendInterpolation(list: columns.values)
        appendLiteral(")")
    }

    /// `a = …, b = …`, each value bound.
    mutating func appendInterpolation(set columns: SQLColumns) {
        for (index, (name, value)) in zip(columns.names, columns.values).enumerated() {
            appendInterpolation(raw: "\(index > 0 ? ", " : "")\(name) = ")
            appendInterpolation(value)
        }
    }
}

extension SQLValue {
    /// A property's value as bound: natively when bindable, an enum of texts as its raw value, a
    /// ``SQLJSONColumn`` as JSON text.
    static func encoding(_ value: some Encodable) throws -> SQLValue {
        if let bindable = value as? any SQLBindable { return bindable.sqlValue }
        if let raw = value as? any RawRepresentable<String> { return .text(raw.rawValue) }
        guard value is any SQLJSONColumn else { throw StoreCorruption("\(type(of: value)) is not a column's type") }
        return .text(try JSONCoding.string(value))
    }
}

/// Encodes a record's properties into values by coding key.
private final class SQLColumnsEncoder: Encoder {
    var values: [String: SQLValue] = [:]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(Columns(encoder: self)) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { preconditionFailure("a record is written as named columns") }
    func singleValueContainer() -> any SingleValueEncodingContainer { preconditionFailure("a record is written as named columns") }

    struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: SQLColumnsEncoder
        var codingPath: [any CodingKey] { [] }
        func encodeNil(forKey key: Key) { encoder.values[key.stringValue] = .null }
        func encode<T: Encodable>(_ value: T, forKey key: Key) throws { encoder.values[key.stringValue] = try .encoding(value) }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> { preconditionFailure("\(key.stringValue): a column holds one value") }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { preconditionFailure("\(key.stringValue): a column holds one value") }
        func superEncoder() -> any Encoder { encoder }
        func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }
}
