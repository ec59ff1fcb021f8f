import Foundation

/// One SQL statement with its values, written once for both stores.
///
/// Values are interpolated and always bound, never spliced into the text:
/// `"SELECT * FROM users WHERE id = \(userId)"` renders as `… WHERE id = ?` with one argument for
/// SQLite (GRDB) and as `… WHERE id = $1` for PostgreSQL (postgres-nio). Both stores keep the
/// same column types (times as UTC seconds in a double, booleans as SQLite integers and
/// PostgreSQL booleans, JSON documents as text), so one text serves both; the few true dialect
/// differences are spelled out where they occur with ``StringInterpolation/appendInterpolation(sqlite:postgres:)``.
///
/// Fragments compose: `\(other)` inserts another statement's text and values, and `+` appends, so
/// an optional condition is added in Swift (`if let module { sql += " AND module_id = \(module)" }`)
/// rather than with `(? IS NULL OR …)`, which PostgreSQL cannot type.
package struct SQL: Sendable, ExpressibleByStringInterpolation {
    fileprivate enum Part: Sendable {
        case text(String)
        case value(SQLValue)
        case dialect(sqlite: String, postgres: String)
    }

    fileprivate var parts: [Part]

    package init(stringLiteral value: String) {
        parts = [.text(value)]
    }

    /// Text that is not a value: identifiers or keywords chosen by the program, never input.
    init(raw text: String) {
        parts = [.text(text)]
    }

    package init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var parts: [Part] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        package mutating func appendLiteral(_ literal: String) {
            parts.append(.text(literal))
        }

        /// A value, bound as a parameter.
        package mutating func appendInterpolation(_ value: some SQLBindable) {
            parts.append(.value(value.sqlValue))
        }

        /// A value that may be absent, bound as a parameter (NULL when absent).
        package mutating func appendInterpolation(_ value: (some SQLBindable)?) {
            parts.append(.value(value?.sqlValue ?? .null))
        }

        /// Values as a comma-separated list of parameters, for `IN (…)` and multi-row `VALUES`.
        /// An empty list renders as `NULL`, so `x IN (NULL)` is false rather than a syntax error.
        package mutating func appendInterpolation(list values: [some SQLBindable]) {
            guard !values.isEmpty else { return parts.append(.text("NULL")) }
            for (index, value) in values.enumerated() {
                if index > 0 { parts.append(.text(", ")) }
                parts.append(.value(value.sqlValue))
            }
        }

        /// Another fragment, with its values.
        package mutating func appendInterpolation(_ fragment: SQL) {
            parts.append(contentsOf: fragment.parts)
        }

        /// Text that is not a value: an identifier or keyword chosen by the program, never input.
        package mutating func appendInterpolation(raw text: String) {
            parts.append(.text(text))
        }

        /// A true difference between the engines, each spelled out (a cast, a lock, a function).
        package mutating func appendInterpolation(sqlite: String, postgres: String) {
            parts.append(.dialect(sqlite: sqlite, postgres: postgres))
        }
    }

    static func + (lhs: SQL, rhs: SQL) -> SQL {
        var joined = lhs
        joined.parts += rhs.parts
        return joined
    }

    static func += (lhs: inout SQL, rhs: SQL) {
        lhs.parts += rhs.parts
    }

    /// The fragments joined by `separator` (`", "` for the rows of a multi-row insert).
    static func joined(_ fragments: [SQL], separator: String) -> SQL {
        var result = SQL(stringLiteral: "")
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result.parts.append(.text(separator)) }
            result.parts += fragment.parts
        }
        return result
    }

    /// The text for `dialect` with its placeholders (`?` or `$n`), and the values in order.
    func rendered(for dialect: SQLDialect) -> (text: String, values: [SQLValue]) {
        var text = ""
        var values: [SQLValue] = []
        for part in parts {
            switch part {
            case .text(let literal):
                text += literal
            case .value(let value):
                values.append(value)
                text += dialect == .sqlite ? "?" : "$\(values.count)"
            case .dialect(let sqlite, let postgres):
                text += dialect == .sqlite ? sqlite : postgres
            }
        }
        return (text, values)
    }
}

/// The two SQL dialects the server speaks.
enum SQLDialect: Sendable {
    case sqlite, postgres
}

/// A value bound to a statement. `Date` is bound as UTC seconds, the way both stores keep times.
package enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case bool(Bool)
}

/// What can be bound to a statement.
package protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable { package var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { package var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int32: SQLBindable { package var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Double: SQLBindable { package var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { package var sqlValue: SQLValue { .text(self) } }
extension Substring: SQLBindable { package var sqlValue: SQLValue { .text(String(self)) } }
extension Bool: SQLBindable { package var sqlValue: SQLValue { .bool(self) } }
extension Data: SQLBindable { package var sqlValue: SQLValue { .blob(self) } }
extension Date: SQLBindable { package var sqlValue: SQLValue { .real(timeIntervalSince1970) } }
extension SQLValue: SQLBindable { package var sqlValue: SQLValue { self } }
