import Foundation
import GRDB
import NIOCore
import PostgresNIO

/// One result row of either store, read by column name (never by position: a new column must
/// not shift the others). Sendable because nothing changes a row once read: GRDB's fetched rows
/// are copies, postgres-nio's rows values.
package enum SQLRow: @unchecked Sendable {
    case sqlite(Row)
    case postgres(PostgresRandomAccessRow)

    /// The value of `column`; throws when the column is missing or holds another type. A column
    /// that may be NULL is read as an optional (`let note: String? = try row["note"]`).
    package subscript<T: SQLDecodable>(_ column: String) -> T {
        get throws { try cell(column).read(column: column) }
    }

    /// Whether `column` is NULL; throws when the row has no such column.
    func isNull(_ column: String) throws -> Bool {
        try cell(column).isNull
    }

    /// The value of `column` as the row holds it, found once, to be read by type
    /// (``SQLCell/read(column:)``); throws when the row has no such column.
    ///
    /// A SQLite row is searched for the name as written first (a comparison of a few bytes per
    /// column), then as GRDB finds it, ignoring case; GRDB alone lowercases every column's name on
    /// every call, and rows are read column by column on every request.
    func cell(_ column: String) throws -> SQLCell {
        var position = 0
        return try cell(column, at: &position)
    }

    /// ``cell(_:)``, trying the column at `position` first (a decoder reads the columns in the
    /// order its query lists them), and leaving `position` at the column after the one found.
    func cell(_ column: String, at position: inout Int) throws -> SQLCell {
        switch self {
        case .sqlite(let row):
            if position < row.count {
                let (name, value) = row[row.index(row.startIndex, offsetBy: position)]
                if name == column {
                    position += 1
                    return .sqlite(value)
                }
            }
            if let index = row.firstIndex(where: { $0.0 == column }) {
                position = row.distance(from: row.startIndex, to: index) + 1
                return .sqlite(row[index].1)
            }
            guard row.hasColumn(column) else { throw SQLRowError.missing(column) }
            return .sqlite(row[column] as DatabaseValue)
        case .postgres(let row):
            guard row.contains(column) else { throw SQLRowError.missing(column) }
            return .postgres(row[column])
        }
    }
}

/// One column's value of a ``SQLRow``, read by its type.
enum SQLCell {
    case sqlite(DatabaseValue)
    case postgres(PostgresCell)

    var isNull: Bool {
        switch self {
        case .sqlite(let value): value.isNull
        case .postgres(let cell): cell.bytes == nil
        }
    }

    /// The value as a `T`; `column` names it in the error when it holds another type.
    func read<T: SQLDecodable>(_ type: T.Type = T.self, column: String) throws -> T {
        switch self {
        case .sqlite(let value): try T(sqlite: value, column: column)
        case .postgres(let cell): try T(postgres: cell, column: column)
        }
    }
}

/// A row that does not hold what the query asked for: a bug, or a database edited by hand.
enum SQLRowError: Error, CustomStringConvertible {
    case missing(String)
    case mismatch(String, expected: String)
    case null(String, expected: String)

    var description: String {
        switch self {
        case .missing(let column): "the database returned no column \(column)"
        case .mismatch(let column, let expected): "the database's column \(column) does not hold \(expected)"
        case .null(let column, let expected): "the database's column \(column) is NULL, not \(expected)"
        }
    }
}

/// What a column can be read as, on both stores.
package protocol SQLDecodable {
    init(sqlite value: DatabaseValue, column: String) throws
    init(postgres cell: PostgresCell, column: String) throws
}

/// Decodable through GRDB's and postgres-nio's own conversions.
package protocol SQLNativeDecodable: SQLDecodable, DatabaseValueConvertible, PostgresDecodable {}

extension SQLNativeDecodable {
    package init(sqlite value: DatabaseValue, column: String) throws {
        guard let decoded = Self.fromDatabaseValue(value) else { throw SQLRowError.mismatch(column, expected: "\(Self.self)") }
        self = decoded
    }

    package init(postgres cell: PostgresCell, column: String) throws {
        do {
            self = try cell.decode(Self.self)
        } catch {
            throw SQLRowError.mismatch(column, expected: "\(Self.self)")
        }
    }
}

extension Int64: SQLNativeDecodable {}
extension Int: SQLNativeDecodable {}
extension Double: SQLNativeDecodable {}
extension String: SQLNativeDecodable {}
extension Bool: SQLNativeDecodable {}

extension Data: SQLDecodable {
    package init(sqlite value: DatabaseValue, column: String) throws {
        guard let data = Data.fromDatabaseValue(value) else { throw SQLRowError.mismatch(column, expected: "bytes") }
        self = data
    }

    package init(postgres cell: PostgresCell, column: String) throws {
        guard var buffer = try? cell.decode(ByteBuffer.self) else { throw SQLRowError.mismatch(column, expected: "bytes") }
        self = Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
    }
}

/// A time kept as UTC seconds.
extension Date: SQLDecodable {
    package init(sqlite value: DatabaseValue, column: String) throws {
        self.init(timeIntervalSince1970: try Double(sqlite: value, column: column))
    }

    package init(postgres cell: PostgresCell, column: String) throws {
        self.init(timeIntervalSince1970: try Double(postgres: cell, column: column))
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    package init(sqlite value: DatabaseValue, column: String) throws {
        self = value.isNull ? nil : try Wrapped(sqlite: value, column: column)
    }

    package init(postgres cell: PostgresCell, column: String) throws {
        self = cell.bytes == nil ? nil : try Wrapped(postgres: cell, column: column)
    }
}
