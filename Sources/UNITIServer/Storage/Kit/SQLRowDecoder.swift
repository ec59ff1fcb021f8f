import Foundation
import Synchronization

extension SQLRow {
    /// The row as a `T`, each property read from the column its coding key names (``SQLColumnNaming``;
    /// `prefix` first, for columns aliased as `staff_name`). A column reads as `row["…"]` reads it
    /// (``SQLDecodable``), so both stores agree; NULL is nil for an optional; an enum of texts is
    /// its raw value; a ``SQLJSONColumn`` is decoded from the JSON text. A
    /// column missing, NULL for a non-optional or of another type throws ``SQLRowError`` naming it.
    ///
    /// It costs what reading the columns by hand does: each column is found once, its name
    /// worked out once per type (``SQLColumnNames``), and texts, numbers and booleans are read
    /// without a dynamic cast.
    func decode<T: Decodable>(_ type: T.Type, prefix: String = "", naming: SQLColumnNaming = .snakeCase) throws -> T {
        try T(from: SQLRowDecoder(row: self, prefix: prefix, naming: naming))
    }

    /// One column as a `T`, by the rules of ``decode(_:prefix:naming:)``.
    func value<T: Decodable>(_ type: T.Type, column: String) throws -> T {
        try SQLCell.value(T.self, in: cell(column), column: column)
    }
}

extension SQLCell {
    /// The cell as a `T`, by the rules of ``SQLRow/decode(_:prefix:naming:)``.
    static func value<T: Decodable>(_ type: T.Type, in cell: SQLCell, column: String) throws -> T {
        switch ColumnKind.of(T.self) {
        case .native(let native):
            func read<V: SQLDecodable>(_ type: V.Type) throws -> V { try cell.read(column: column) }
            do { return try read(native) as! T } catch let error as SQLRowError {
                throw cell.isNull ? SQLRowError.null(column, expected: "\(T.self)") : error
            }
        case .optional(let optional):
            return try (cell.isNull ? optional.sqlNull : optional.sqlDecoded(cell, column)) as! T
        case .text(let raw):
            guard !cell.isNull else { throw SQLRowError.null(column, expected: "\(T.self)") }
            guard let value = raw.init(rawValue: try cell.read(String.self, column: column)) else {
                throw SQLRowError.mismatch(column, expected: "\(T.self)")
            }
            return value as! T
        case .json:
            guard !cell.isNull else { throw SQLRowError.null(column, expected: "\(T.self)") }
            do { return try JSONCoding.decode(T.self, from: try cell.read(String.self, column: column)) } catch let error as SQLRowError { throw error } catch {
                throw SQLRowError.mismatch(column, expected: "JSON of \(T.self)")
            }
        case .none:
            guard !cell.isNull else { throw SQLRowError.null(column, expected: "\(T.self)") }
            throw SQLRowError.mismatch(column, expected: "\(T.self), not a column's type")
        }
    }

    /// A ``SQLDecodable`` value; NULL for a non-optional throws ``SQLRowError/null(_:expected:)``.
    func native<T: SQLDecodable>(_ type: T.Type, column: String) throws -> T {
        do { return try read(column: column) } catch let error as SQLRowError {
            throw isNull ? SQLRowError.null(column, expected: "\(T.self)") : error
        }
    }
}

/// Reads a row's columns by the coding keys of a `Decodable`. A class: it keeps the position of
/// the next column, where the next key's column usually is.
private final class SQLRowDecoder: Decoder {
    let row: SQLRow, prefix: String, naming: SQLColumnNaming
    var position = 0

    init(row: SQLRow, prefix: String, naming: SQLColumnNaming) {
        (self.row, self.prefix, self.naming) = (row, prefix, naming)
    }

    /// The cell of `column`, looked for at ``position`` first.
    func cell(_ column: String) throws -> SQLCell {
        try row.cell(column, at: &position)
    }
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns(decoder: self, known: naming == .snakeCase ? SQLColumnNames.known(for: Key.self) : [:]))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw StoreCorruption("a row is read as named columns") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw StoreCorruption("a row is read as named columns") }

    /// The keys' columns; texts, numbers and booleans (most columns) have overloads of their own,
    /// which read them without the dynamic casts of the generic `decode`.
    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: SQLRowDecoder
        /// The snake_case columns of the keys met before, in this row or in another of the type.
        let known: [String: String]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        /// Every key is a column: one the row lacks throws when read, for an optional too.
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { try decoder.cell(column(key)).isNull }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let column = column(key)
            return try SQLCell.value(T.self, in: decoder.cell(column), column: column)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            let column = column(key), cell = try decoder.cell(column)
            return cell.isNull ? nil : try SQLCell.value(T.self, in: cell, column: column)
        }

        func decode(_ type: String.Type, forKey key: Key) throws -> String { try native(key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try native(key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try native(key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try native(key) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try native(key) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try native(key) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try native(key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try native(key) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try native(key) }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try native(key) }

        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> { throw nested(key) }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw nested(key) }
        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }

        private func native<T: SQLDecodable>(_ key: Key) throws -> T {
            let column = column(key)
            return try decoder.cell(column).native(T.self, column: column)
        }

        private func column(_ key: Key) -> String {
            let name = key.stringValue
            let column: String
            switch decoder.naming {
            case .asWritten:
                column = name
            case .snakeCase:
                if let known = known[name] {
                    column = known
                } else {
                    column = SQLColumnNaming.snakeCase.column(name)
                    SQLColumnNames.remember(name, column, for: Key.self)
                }
            }
            return decoder.prefix.isEmpty ? column : decoder.prefix + column
        }

        private func nested(_ key: Key) -> SQLRowError { .mismatch(column(key), expected: "one value (a structured one is an SQLJSONColumn)") }
    }
}

/// How a type is read from a column, told by dynamic casts once per type: the casts, on every
/// column of every row, had cost more than reading the columns.
private enum ColumnKind: @unchecked Sendable {
    /// Read as `row["…"]` reads it.
    case native(any SQLDecodable.Type)
    /// An optional of one of the others: NULL is nil.
    case optional(any SQLNullable.Type)
    /// An enum of texts, by its raw value.
    case text(any RawRepresentable<String>.Type)
    /// A ``SQLJSONColumn``, from its JSON text.
    case json
    /// No column's type.
    case none

    private static let kinds = Mutex<[ObjectIdentifier: ColumnKind]>([:])

    static func of<T>(_ type: T.Type) -> ColumnKind {
        if let kind = kinds.withLock({ $0[ObjectIdentifier(type)] }) { return kind }
        let kind: ColumnKind = if let native = T.self as? any SQLDecodable.Type {
            .native(native)
        } else if let optional = T.self as? any SQLNullable.Type {
            .optional(optional)
        } else if let raw = T.self as? any RawRepresentable<String>.Type {
            .text(raw)
        } else if T.self is any SQLJSONColumn.Type {
            .json
        } else {
            .none
        }
        kinds.withLock { $0[ObjectIdentifier(type)] = kind }
        return kind
    }
}

/// An optional of a type that is not ``SQLDecodable`` (an enum, a JSON document). Its members
/// stay in this file: an `Optional.null` seen elsewhere would turn `value == .null` into `== nil`.
private protocol SQLNullable {
    static var sqlNull: Self { get }
    static func sqlDecoded(_ cell: SQLCell, _ column: String) throws -> Self
}

extension Optional: SQLNullable where Wrapped: Decodable {
    fileprivate static var sqlNull: Self { nil }
    fileprivate static func sqlDecoded(_ cell: SQLCell, _ column: String) throws -> Self { try SQLCell.value(Wrapped.self, in: cell, column: column) }
}
