import SQLite
import Storage
import Testing

@Suite struct SQLValueTests {
    @Test func literalsBuildTheMatchingCases() {
        let values: [SQLValue] = ["a", 7, 1.5, nil, true, false]
        #expect(values == [.text("a"), .integer(7), .real(1.5), .null, .integer(1), .integer(0)])
    }

    @Test func optionalInitializersMapNilToNull() {
        #expect(SQLValue(String?.none) == .null)
        #expect(SQLValue(Int?.none) == .null)
        #expect(SQLValue(Int64?.none) == .null)
        #expect(SQLValue(Double?.none) == .null)
        #expect(SQLValue(Bool?.none) == .null)
        #expect(SQLValue([UInt8]?.none) == .null)
        #expect(SQLValue("x" as String?) == .text("x"))
        #expect(SQLValue(3 as Int?) == .integer(3))
        #expect(SQLValue(Int64.min as Int64?) == .integer(.min))
        #expect(SQLValue(2.5 as Double?) == .real(2.5))
        #expect(SQLValue(true as Bool?) == .integer(1))
        #expect(SQLValue(false as Bool?) == .integer(0))
        #expect(SQLValue([0, 1] as [UInt8]?) == .blob([0, 1]))
    }

    @Test func accessorsReadOnlyTheirOwnCase() {
        #expect(SQLValue.text("5").string == "5")
        #expect(SQLValue.text("5").int64 == nil)
        #expect(SQLValue.text("5").double == nil)
        #expect(SQLValue.text("5").bytes == nil)
        #expect(SQLValue.integer(5).int64 == 5)
        #expect(SQLValue.integer(5).int == 5)
        #expect(SQLValue.integer(5).double == 5.0)
        #expect(SQLValue.integer(5).string == nil)
        #expect(SQLValue.integer(0).bool == false)
        #expect(SQLValue.integer(-2).bool == true)
        #expect(SQLValue.real(1.0).bool == nil)
        #expect(SQLValue.real(0.25).double == 0.25)
        #expect(SQLValue.real(0.25).int64 == nil)
        #expect(SQLValue.blob([1]).bytes == [1])
        #expect(SQLValue.blob([]).bytes == [])
        #expect(SQLValue.blob([65]).string == nil)
        #expect(SQLValue.null.isNull)
        #expect(!SQLValue.blob([]).isNull)
        #expect(!SQLValue.text("").isNull)
        #expect(SQLValue.null.string == nil && SQLValue.null.int == nil && SQLValue.null.bool == nil)
    }

    @Test func rowSubscriptsByNameAndIndex() {
        let row = Row(columns: ["id", "Name"], values: [.integer(1), .text("a")])
        #expect(row["id"] == .integer(1))
        #expect(row["name"] == .text("a"))
        #expect(row["missing"] == .null)
        #expect(row[1] == .text("a"))
        #expect(row[2] == .null)
        #expect(row[-1] == .null)
        #expect(row.columns == ["id", "Name"])
    }
}
