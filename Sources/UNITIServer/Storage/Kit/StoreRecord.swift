import Foundation
import Synchronization

/// A row as a Swift value whose coding keys are its table's columns (`startsAt` is `starts_at`;
/// a key spelled in snake_case is the column's name as it stands). The keys are listed once, so the
/// reads (``columns(of:prefix:)``, ``SQLRow/decode(_:prefix:naming:)``) and the writes (``SQLColumns``) take
/// the columns from the same list, by name: a new column is one new key.
protocol StoreRecord: Codable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension StoreRecord {
    /// The columns in the keys' order, for a SELECT list: `table.column, …` when `table` is given,
    /// each `AS prefix_column` with a prefix (read back with ``SQLRow/decode(_:prefix:naming:)``).
    static func columns(of table: String? = nil, prefix: String = "") -> SQL {
        SQL(raw: SQLColumnNames.layout(of: CodingKeys.self).columns.map { column in
            (table.map { "\($0)." } ?? "") + column + (prefix.isEmpty ? "" : " AS \(prefix)\(column)")
        }.joined(separator: ", "))
    }
}

/// A value kept as JSON text (``JSONCoding``: sorted keys), read and written so by the row coders.
protocol SQLJSONColumn: Codable {}
extension Array: SQLJSONColumn where Element: Codable {}

/// How a coding key names its column: `startsAt` is `starts_at`, or the key as written.
enum SQLColumnNaming: Sendable {
    case snakeCase, asWritten

    /// The column of `key`. Coding keys are Swift identifiers in ASCII, so only the ASCII capitals
    /// `A`…`Z` start a new word; the bytes are scanned as such, without Unicode's tables.
    func column(_ key: String) -> String {
        guard self == .snakeCase, key.utf8.contains(where: Self.isCapital) else { return key }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.utf8.count + 4)
        for byte in key.utf8 {
            if Self.isCapital(byte) {
                if !bytes.isEmpty { bytes.append(UInt8(ascii: "_")) }
                bytes.append(byte + (UInt8(ascii: "a") - UInt8(ascii: "A")))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isCapital(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
}

/// The snake_case columns of coding keys, worked out once per type of keys and kept for the
/// process: a key's name does not change, and working it out on every row and every bind had cost
/// a tenth of the server's time under uploads (`Scripts/bench/server`, issue 45).
enum SQLColumnNames {
    /// A ``StoreRecord``'s columns in the order of its keys, and the position of each key by name.
    struct Layout: Sendable {
        /// The keys' names, in their order.
        let keys: [String]
        let columns: [String]
        /// The columns joined by `", "`.
        let list: String
        let positions: [String: Int]
    }

    private struct Omission: Hashable {
        let keys: ObjectIdentifier
        let positions: [Int]
    }

    private static let layouts = Mutex<[ObjectIdentifier: Layout]>([:])
    private static let omissions = Mutex<[Omission: (columns: [String], list: String)]>([:])
    private static let columnsByKey = Mutex<[ObjectIdentifier: [String: String]]>([:])

    /// The columns of every key of `Key`, in the order of `allCases`.
    static func layout<Key: CodingKey & CaseIterable>(of type: Key.Type) -> Layout {
        if let layout = layouts.withLock({ $0[ObjectIdentifier(type)] }) { return layout }
        let keys = Key.allCases.map(\.stringValue)
        let columns = keys.map(SQLColumnNaming.snakeCase.column)
        let layout = Layout(keys: keys, columns: columns, list: columns.joined(separator: ", "),
                            positions: Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }))
        layouts.withLock { $0[ObjectIdentifier(type)] = layout }
        return layout
    }

    /// The columns of `Key` but those at `positions`, and their list.
    static func omitting<Key: CodingKey & CaseIterable>(_ positions: [Int], from type: Key.Type) -> (columns: [String], list: String) {
        let omission = Omission(keys: ObjectIdentifier(type), positions: positions)
        if let columns = omissions.withLock({ $0[omission] }) { return columns }
        let columns = layout(of: type).columns.enumerated().filter { !positions.contains($0.offset) }.map(\.element)
        let result = (columns, columns.joined(separator: ", "))
        omissions.withLock { $0[omission] = result }
        return result
    }

    /// The snake_case column of each key of `Key` met so far, by the key's name (a `Decodable`'s
    /// keys need not be `CaseIterable`, so they are added as rows are decoded; ``remember(_:_:for:)``).
    static func known<Key: CodingKey>(for type: Key.Type) -> [String: String] {
        columnsByKey.withLock { $0[ObjectIdentifier(type)] } ?? [:]
    }

    /// Keeps `column` as the snake_case column of `key` of `Key`.
    static func remember<Key: CodingKey>(_ key: String, _ column: String, for type: Key.Type) {
        columnsByKey.withLock { $0[ObjectIdentifier(type), default: [:]][key] = column }
    }
}

/// Columns and their values by name, for `INSERT INTO t \(insert: columns)` and
/// `UPDATE t SET \(set: columns)`: nothing depends on the position of a value.
struct SQLColumns: Sendable {
    private(set) var names: [String] = []
    private(set) var values: [SQLValue] = []
    /// The names joined by `", "`, kept with them: joining them for every statement had cost more
    /// than the rest of making it.
    private(set) var list = ""

    /// The columns of `record`, each from its coding key (as ``StoreRecord/columns(of:prefix:)`` lists
    /// them; an absent optional is NULL), except those `omitting` names (columns the store sets
    /// itself).
    init<Record: StoreRecord>(_ record: Record, omitting: [Record.CodingKeys] = []) throws {
        let layout = SQLColumnNames.layout(of: Record.CodingKeys.self)
        let encoder = SQLColumnsEncoder(layout: layout)
        try record.encode(to: encoder)
        let omitted = omitting.compactMap { layout.positions[$0.stringValue] }
        (names, list) = omitted.isEmpty ? (layout.columns, layout.list) : SQLColumnNames.omitting(omitted, from: Record.CodingKeys.self)
        values.reserveCapacity(layout.columns.count + 4)
        for (position, value) in encoder.values.enumerated() where !omitted.contains(position) { values.append(value) }
    }

    /// Adds (or replaces) one column's value.
    mutating func set(_ name: String, _ value: (some SQLBindable)?) {
        let value = value?.sqlValue ?? .null
        if let index = names.firstIndex(of: name) {
            values[index] = value
        } else {
            list += list.isEmpty ? name : ", " + name
            names.append(name)
            values.append(value)
        }
    }
}

extension SQL.StringInterpolation {
    /// `(a, b) VALUES (…, …)`, each value bound.
    mutating func appendInterpolation(insert columns: SQLColumns) {
        appendInterpolation(raw: "(\(columns.list)) VALUES (")
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

/// Encodes a record's properties into values, each at its key's position in the record's
/// ``SQLColumnNames/Layout`` (a key not written, an absent optional, stays NULL). The common column
/// types have their own overloads, so that they are bound without a dynamic cast.
private final class SQLColumnsEncoder: Encoder {
    let layout: SQLColumnNames.Layout
    var values: [SQLValue]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(layout: SQLColumnNames.Layout) {
        self.layout = layout
        values = Array(repeating: .null, count: layout.columns.count)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(Columns(encoder: self)) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { preconditionFailure("a record is written as named columns") }
    func singleValueContainer() -> any SingleValueEncodingContainer { preconditionFailure("a record is written as named columns") }

    /// The position of the key after the one written last, where the next key usually is: a
    /// record encodes its properties in the order of its keys, as a rule.
    private var next = 0

    /// Keeps `value` as the column of `key`; a key that is no case of the record's keys is none of its columns.
    func set(_ value: SQLValue, _ key: some CodingKey) {
        let name = key.stringValue
        let position = next < layout.keys.count && layout.keys[next] == name ? next : layout.positions[name]
        guard let position else { return }
        values[position] = value
        next = position + 1
    }

    struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: SQLColumnsEncoder
        var codingPath: [any CodingKey] { [] }
        func encodeNil(forKey key: Key) { encoder.set(.null, key) }
        func encode(_ value: String, forKey key: Key) { encoder.set(value.sqlValue, key) }
        func encode(_ value: Int, forKey key: Key) { encoder.set(value.sqlValue, key) }
        func encode(_ value: Int64, forKey key: Key) { encoder.set(value.sqlValue, key) }
        func encode(_ value: Double, forKey key: Key) { encoder.set(value.sqlValue, key) }
        func encode(_ value: Bool, forKey key: Key) { encoder.set(value.sqlValue, key) }
        func encode<T: Encodable>(_ value: T, forKey key: Key) throws { encoder.set(try .encoding(value), key) }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> { preconditionFailure("\(key.stringValue): a column holds one value") }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { preconditionFailure("\(key.stringValue): a column holds one value") }
        func superEncoder() -> any Encoder { encoder }
        func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }
}
