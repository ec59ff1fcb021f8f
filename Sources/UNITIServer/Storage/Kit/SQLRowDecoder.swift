import Foundation

extension SQLRow {
    /// The row as a `T`, each property read from the column its coding key names (``SQLColumnNaming``;
    /// `prefix` first, for columns aliased as `staff_name`). A column reads as `row["…"]` reads it
    /// (``SQLDecodable``), so both stores agree; NULL is nil for an optional; an enum of texts is
    /// its raw value; a ``SQLJSONColumn`` is decoded from the JSON text. A
    /// column missing, NULL for a non-optional or of another type throws ``SQLRowError`` naming it.
    func decode<T: Decodable>(_ type: T.Type, prefix: String = "", naming: SQLColumnNaming = .snakeCase) throws -> T {
        try T(from: SQLRowDecoder(row: self, prefix: prefix, naming: naming))
    }

    /// One column as a `T`, by the rules of ``decode(_:prefix:naming:)``.
    func value<T: Decodable>(_ type: T.Type, column: String) throws -> T {
        if let native = T.self as? any SQLDecodable.Type {
            func read<V: SQLDecodable>(_ type: V.Type) throws -> V { try self[column] }
            do { return try read(native) as! T } catch let error as SQLRowError {
                throw try isNull(column) ? SQLRowError.null(column, expected: "\(T.self)") : error
            }
        }
        if try isNull(column) {
            guard let optional = T.self as? any SQLNullable.Type else { throw SQLRowError.null(column, expected: "\(T.self)") }
            return optional.sqlNull as! T
        }
        if let optional = T.self as? any SQLNullable.Type { return try optional.sqlDecoded(self, column) as! T }
        if let raw = T.self as? any RawRepresentable<String>.Type {
            guard let value = raw.init(rawValue: try self[column]) else { throw SQLRowError.mismatch(column, expected: "\(T.self)") }
            return value as! T
        }
        guard T.self is any SQLJSONColumn.Type else { throw SQLRowError.mismatch(column, expected: "\(T.self), not a column's type") }
        do { return try JSONCoding.decode(T.self, from: try self[column] as String) } catch let error as SQLRowError { throw error } catch {
            throw SQLRowError.mismatch(column, expected: "JSON of \(T.self)")
        }
    }
}

/// Reads a row's columns by the coding keys of a `Decodable`.
private struct SQLRowDecoder: Decoder {
    let row: SQLRow, prefix: String, naming: SQLColumnNaming
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> { KeyedDecodingContainer(Columns(decoder: self)) }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw StoreCorruption("a row is read as named columns") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw StoreCorruption("a row is read as named columns") }

    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: SQLRowDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        /// Every key is a column: one the row lacks throws when read, for an optional too.
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { try decoder.row.isNull(column(key)) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.row.value(T.self, column: column(key)) }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> { throw nested(key) }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw nested(key) }
        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }

        private func column(_ key: Key) -> String { decoder.prefix + decoder.naming.column(key.stringValue) }
        private func nested(_ key: Key) -> SQLRowError { .mismatch(column(key), expected: "one value (a structured one is an SQLJSONColumn)") }
    }
}

/// An optional of a type that is not ``SQLDecodable`` (an enum, a JSON document). Its members
/// stay in this file: an `Optional.null` seen elsewhere would turn `value == .null` into `== nil`.
private protocol SQLNullable {
    static var sqlNull: Self { get }
    static func sqlDecoded(_ row: SQLRow, _ column: String) throws -> Self
}

extension Optional: SQLNullable where Wrapped: Decodable {
    fileprivate static var sqlNull: Self { nil }
    fileprivate static func sqlDecoded(_ row: SQLRow, _ column: String) throws -> Self { try row.value(Wrapped.self, column: column) }
}
