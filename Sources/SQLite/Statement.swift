import CSQLite
import Storage

/// A prepared statement owned by one `Connection`; finalized when released.
/// See https://sqlite.org/c3ref/stmt.html
final class Statement {
    /// The `sqlite3_stmt`; valid until deinit.
    let handle: OpaquePointer
    /// The SQL it was prepared from (also the cache key).
    let sql: String
    /// Whether a caller is stepping it now; a busy statement is not handed out again (re-entrant queries).
    var isBusy = false

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    /// https://sqlite.org/c3ref/finalize.html
    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `arguments` to the `?` parameters in order, after checking their count.
    /// Text and blobs are copied (`SQLITE_TRANSIENT`) and bound with their explicit byte length, so
    /// embedded NULs survive; an empty blob is bound with `sqlite3_bind_zeroblob`, since a zero-length
    /// `sqlite3_bind_blob` with a NULL pointer binds NULL. See https://sqlite.org/c3ref/bind_blob.html
    /// - Throws: `DatabaseError` on a count mismatch or a binding failure.
    func bind(_ arguments: [SQLValue], connection: OpaquePointer) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == arguments.count else {
            throw DatabaseError(
                code: SQLITE_RANGE, message: "statement takes \(expected) arguments but \(arguments.count) were given",
                sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                rc = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                rc = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                var text = text
                rc = text.withUTF8 { utf8 in
                    guard let base = utf8.baseAddress, utf8.count > 0 else {
                        return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                        sqlite3_bind_text64(
                            handle, index, $0, sqlite3_uint64(utf8.count), csqlite_transient(), UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress, raw.count > 0 else {
                        return sqlite3_bind_zeroblob(handle, index, 0)
                    }
                    return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(raw.count), csqlite_transient())
                }
            }
            guard rc == SQLITE_OK else {
                throw DatabaseError(code: rc, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
            }
        }
    }

    /// The result column names. See https://sqlite.org/c3ref/column_name.html
    func columnNames() -> [String] {
        (0..<sqlite3_column_count(handle)).map { index in
            sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
        }
    }

    /// The current row's values, typed by each column's storage class.
    /// See https://sqlite.org/c3ref/column_blob.html
    func row(columns: [String]) -> Row {
        Row(columns: columns, values: (0..<Int32(columns.count)).map(value(at:)))
    }

    /// The value in column `index` of the current row.
    func value(at index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // Ask for the pointer first, then the length, as https://sqlite.org/c3ref/column_blob.html advises.
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(handle, index) else { return .blob([]) }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            return .null
        }
    }

    /// Makes it ready for the next use. See https://sqlite.org/c3ref/reset.html
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}
