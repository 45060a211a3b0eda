import Foundation
import GatehouseReceipts
import GatehouseTesting
import SQLite
import Storage
import Testing

/// `gatehouse receipts rotate-key` as an operator runs it, beside the database a server uses.
@Suite("receipts rotate-key", .serialized)
struct ReceiptsCommandTests {
    @Test func rotateKeyRetiresTheCurrentKeyAndNamesBoth() throws {
        let database = try CommandLineTests.temporaryDatabase()
        let first = try CommandLineTests.run(["receipts", "rotate-key", "--database", database])
        #expect(first.status == 0, "\(first.error)")
        let lines = first.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(first.output)")
        let current = try #require(lines.first?.split(separator: " ").dropFirst(3).first.map(String.init))
        let second = try CommandLineTests.run(["receipts", "rotate-key", "--database", database])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.contains("\(current) retired; published for another 60 minutes"), "\(second.output)")

        let rows = try Database(path: database).read { db in
            try db.query("SELECT kid, retired_at FROM receipt_keys ORDER BY created_at, retired_at IS NULL")
        }
        #expect(rows.count == 3)
        #expect(rows.filter { (try? $0.optionalInteger("retired_at")) == .some(nil) }.count == 1)
        #expect(!second.output.contains("PRIVATE") && !second.error.contains("PRIVATE"))

        let revoked = try CommandLineTests.run(["receipts", "rotate-key", "--revoke-now", "--database", database])
        #expect(revoked.status == 0, "\(revoked.error)")
        #expect(revoked.output.contains("revoked: no longer published"), "\(revoked.output)")
        let live = try Database(path: database).read { db in
            try db.query("SELECT kid FROM receipt_keys WHERE revoked_at IS NULL")
        }
        #expect(live.count == 1, "every key but the new current one is revoked")

        let usage = try CommandLineTests.run(["receipts", "rotate"])
        #expect(usage.status == 2)
        #expect(usage.error.contains("gatehouse receipts rotate-key"))
    }
}
