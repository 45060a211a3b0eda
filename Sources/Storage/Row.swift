/// One result row: its column names and values, copied out of the engine so it outlives the statement.
///
/// Read strictly, by name: ``text(_:)``, ``integer(_:)``, ``blob(_:)``… throw ``StorageError`` (kind
/// ``StorageError/Kind/malformedRow``) when the column is missing or holds another type, so a query that lost a
/// column or a column that changed type is an error at once, never a silent default. The `optional…` forms accept
/// `NULL` (as nil) and nothing else.
public struct Row: Sendable {
    /// The result column names, in order (`AS` aliases when given).
    public let columns: [String]
    /// The values, in column order.
    public let values: [SQLValue]

    /// A row of `values` named by `columns` (the two have the same length).
    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of the first column named `column` (exactly, else ignoring ASCII case, as SQL does).
    /// - Throws: ``StorageError`` when the row has no such column.
    public func value(_ column: String) throws -> SQLValue {
        if let index = columns.firstIndex(of: column) { return values[index] }
        let lowered = column.lowercased()
        if let index = columns.firstIndex(where: { $0.lowercased() == lowered }) { return values[index] }
        throw StorageError(.malformedRow, "no column \(column) in a row of \(columns.joined(separator: ", "))")
    }

    /// The value at `index` (for statements whose one column has no name worth giving).
    /// - Throws: ``StorageError`` when the row has fewer columns.
    public func value(at index: Int) throws -> SQLValue {
        guard values.indices.contains(index) else {
            throw StorageError(.malformedRow, "no column \(index) in a row of \(values.count)")
        }
        return values[index]
    }

    /// The text of `column`. - Throws: ``StorageError`` when it is missing or not text.
    public func text(_ column: String) throws -> String {
        try typed(column, "text") { $0.string }
    }

    /// The text of `column`, nil for `NULL`. - Throws: ``StorageError`` when it is missing or another type.
    public func optionalText(_ column: String) throws -> String? {
        try optional(column, "text") { $0.string }
    }

    /// The integer of `column`. - Throws: ``StorageError`` when it is missing or not an integer.
    public func integer(_ column: String) throws -> Int64 {
        try typed(column, "integer") { $0.int64 }
    }

    /// The integer of `column`, nil for `NULL`. - Throws: ``StorageError`` when it is missing or another type.
    public func optionalInteger(_ column: String) throws -> Int64? {
        try optional(column, "integer") { $0.int64 }
    }

    /// The integer of `column` as `Int`. - Throws: ``StorageError`` when it is missing, not an integer, or too big.
    public func int(_ column: String) throws -> Int {
        try typed(column, "integer") { $0.int }
    }

    /// The boolean of `column` (stored as 0 or 1). - Throws: ``StorageError`` when it is missing or not 0 or 1.
    public func bool(_ column: String) throws -> Bool {
        try typed(column, "boolean (0 or 1)") { value in value.int64.flatMap { $0 == 0 ? false : $0 == 1 ? true : nil } }
    }

    /// The bytes of `column`. - Throws: ``StorageError`` when it is missing or not a blob.
    public func blob(_ column: String) throws -> [UInt8] {
        try typed(column, "blob") { $0.bytes }
    }

    /// The bytes of `column`, nil for `NULL`. - Throws: ``StorageError`` when it is missing or another type.
    public func optionalBlob(_ column: String) throws -> [UInt8]? {
        try optional(column, "blob") { $0.bytes }
    }

    /// The number of `column` (a real, or an integer). - Throws: ``StorageError`` when it is missing or not a number.
    public func real(_ column: String) throws -> Double {
        try typed(column, "number") { $0.double }
    }

    private func typed<T>(_ column: String, _ type: String, _ read: (SQLValue) -> T?) throws -> T {
        let value = try value(column)
        guard let typed = read(value) else { throw Self.mistyped(column, type, value) }
        return typed
    }

    private func optional<T>(_ column: String, _ type: String, _ read: (SQLValue) -> T?) throws -> T? {
        let value = try value(column)
        if value.isNull { return nil }
        guard let typed = read(value) else { throw Self.mistyped(column, type, value) }
        return typed
    }

    /// Names the column and the types, never the value (it may be a secret).
    private static func mistyped(_ column: String, _ type: String, _ value: SQLValue) -> StorageError {
        StorageError(.malformedRow, "column \(column) holds \(value.typeName), not \(type)")
    }
}

extension SQLValue {
    /// The storage class's name, for messages.
    var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "an integer"
        case .real: "a real"
        case .text: "text"
        case .blob: "a blob"
        }
    }
}
