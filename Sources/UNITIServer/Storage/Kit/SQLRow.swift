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
        get throws {
            switch self {
            case .sqlite(let row):
                guard row.hasColumn(column) else { throw SQLRowError.missing(column) }
                return try T(sqlite: row[column] as DatabaseValue, column: column)
            case .postgres(let row):
                guard row.contains(column) else { throw SQLRowError.missing(column) }
                return try T(postgres: row[column], column: column)
            }
        }
    }

    /// Whether `column` is NULL; throws when the row has no such column.
    func isNull(_ column: String) throws -> Bool {
        switch self {
        case .sqlite(let row):
            guard row.hasColumn(column) else { throw SQLRowError.missing(column) }
            return (row[column] as DatabaseValue).isNull
        case .postgres(let row):
            guard row.contains(column) else { throw SQLRowError.missing(column) }
            return row[column].bytes == nil
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
