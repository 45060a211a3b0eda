import SQLite
import Storage
import Testing
import TestSupport

@Suite struct BindingTests {
    static let values: [SQLValue] = [
        .null, .integer(0), .integer(-1), .integer(.min), .integer(.max), .real(3.25), .real(-1e-300),
        .text(""), .text("plain"), .text("a\u{0}b\u{0}"), .text("\u{0}"), .text("é👋"),
        .blob([]), .blob([0]), .blob([1, 0, 2, 0, 255]),
    ]

    /// The storage class SQLite must report for `value`.
    static func storageClass(_ value: SQLValue) -> String {
        switch value {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }

    @Test(arguments: values)
    func valueRoundTripsThroughAFile(_ value: SQLValue) throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("binding.sqlite"))
        try database.write { connection in
            try connection.execute("CREATE TABLE t (v)")
            try connection.execute("INSERT INTO t (v) VALUES (?)", [value])
        }
        let row = try #require(
            try database.read {
                try $0.queryOne("SELECT v, typeof(v) AS type, length(CAST(v AS BLOB)) AS size, v IS NULL AS absent FROM t")
            })
        #expect(row["v"] == value)
        #expect(row["type"] == .text(Self.storageClass(value)))
        #expect(row["absent"].bool == value.isNull)
        switch value {
        case .text(let text): #expect(row["size"] == .integer(Int64(text.utf8.count)))
        case .blob(let bytes): #expect(row["size"] == .integer(Int64(bytes.count)))
        default: break
        }
    }

    @Test(arguments: values)
    func boundParameterComesBackUnchanged(_ value: SQLValue) throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("echo.sqlite"))
        let row = try database.read { try $0.queryOne("SELECT ? AS v, typeof(?) AS type", [value, value]) }
        #expect(row?["v"] == value)
        #expect(row?["type"] == .text(Self.storageClass(value)))
    }

    @Test func typedColumnsReadBackAsTheirStorageClass() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("typed.sqlite"))
        let row = try database.read {
            try $0.queryOne("SELECT 42 AS i, 0.5 AS r, 'x' AS t, x'00ff' AS b, NULL AS n, zeroblob(0) AS e, '' AS s")
        }
        #expect(row?["i"].int == 42)
        #expect(row?["r"].double == 0.5)
        #expect(row?["t"].string == "x")
        #expect(row?["b"].bytes == [0, 255])
        #expect(row?["n"].isNull == true)
        #expect(row?["e"] == .blob([]))
        #expect(row?["s"] == .text(""))
    }
}
