/// One result row: its column names and values, copied out of SQLite so it outlives the statement.
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

    /// The value of the first column named `column` (exactly, else ignoring ASCII case, as SQLite does);
    /// `.null` when there is no such column.
    public subscript(_ column: String) -> SQLValue {
        if let index = columns.firstIndex(of: column) {
            return values[index]
        }
        let lowered = column.lowercased()
        if let index = columns.firstIndex(where: { $0.lowercased() == lowered }) {
            return values[index]
        }
        return .null
    }

    /// The value at `index`; `.null` when the index is out of range.
    public subscript(_ index: Int) -> SQLValue {
        values.indices.contains(index) ? values[index] : .null
    }
}
