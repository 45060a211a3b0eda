import DomainTesting
import Crypto
import Foundation
@testable import Gatehouse
import GatehouseReceipts
import Testing
import ThrowawayPostgres

/// Servers of one PostgreSQL database whose clocks disagree: single-use state one of them judges still live is not
/// deleted by another whose clock runs ahead (DEVICE-API.md "Receipts spent once").
@Suite("Single use across servers with skewed clocks")
struct ClockSkewTests {
    @Test func aReceiptSpentOnOneServerStaysSpentWhenAServerAheadPurges() throws {
        let fixture = try DomainFixture(.postgresql, now: 1_800_000_000)
        let behind = fixture.clock
        let ahead = TestClock(1_800_000_000 + 90)   // 90 s ahead: within what NTP-less servers drift to
        let one = fixture.domain.store, two = try fixture.anotherServer(clock: ahead).store
        let (environment, _) = try Environments(store: one).create(name: "Skew", kind: .production, actor: .system)
        let keys = ReceiptKeys(store: one)
        _ = try keys.prepare()
        let receipt = try ReceiptIssuer(keys: keys).issue(environmentID: environment.id, requestID: "req_skew", platform: "ios", action: .allow,
                                                         attestation: nil, receiptKey: nil)
        let checker = ReceiptChecker(store: one, keys: keys)
        func check() throws -> ReceiptCheck {
            try checker.check(receipt, method: "POST", pathAndQuery: "/pay", proof: nil, policy: ReceiptPolicy(), environmentID: environment.id, consume: true)
        }
        #expect(try check().consumed)
        // 550 s on: the first server still judges the receipt live (exp is 600 s after issue); the second, 90 s ahead,
        // is past its exp and purges.
        behind.advance(by: 550)
        ahead.advance(by: 550)
        _ = try ReceiptChecker(store: two, keys: ReceiptKeys(store: two)).purgeExpired()
        let again = try check()
        #expect(!again.consumed, "a receipt was spent twice: the server ahead forgot its spend")
        #expect(again.verification.reasons == [.consumed])
    }
}
