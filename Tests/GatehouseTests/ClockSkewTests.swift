import DomainTesting
import Crypto
import Foundation
@testable import Gatehouse
import GatehouseReceipts
import Testing
import ThrowawayPostgres

/// Servers of one PostgreSQL database whose clocks disagree: single-use state one of them judges still live is not
/// deleted by another whose clock runs ahead (docs/device-api.md "Receipts spent once").
@Suite("Single use across servers with skewed clocks")
struct ClockSkewTests {
    @Test func aReceiptSpentOnOneServerStaysSpentWhenAServerAheadPurges() throws {
        let fixture = try DomainFixture(.postgresql, now: 1_800_000_000)
        let behind = fixture.clock
        let ahead = TestClock(1_800_000_000 + 90)   // 90 s ahead: within what NTP-less servers drift to
        let one = fixture.domain, two = try fixture.anotherServer(clock: ahead)
        let (environment, _) = try one.environments.create(name: "Skew", kind: .production, actor: .system)
        _ = try one.receiptKeys.prepare()
        let receipt = try one.receipts.issue(environmentID: environment.id, requestID: "req_skew", platform: "ios", action: .allow,
                                                         attestation: nil, receiptKey: nil)
        let checker = one.receiptChecker
        func check() throws -> ReceiptCheck {
            try checker.check(receipt, method: "POST", pathAndQuery: "/pay", proof: nil, policy: ReceiptPolicy(), environmentID: environment.id, consume: true)
        }
        #expect(try check().consumed)
        // 550 s on: the first server still judges the receipt live (exp is 600 s after issue); the second, 90 s ahead,
        // is past its exp and purges.
        behind.advance(by: 550)
        ahead.advance(by: 550)
        _ = try two.receiptChecker.purgeExpired()
        let again = try check()
        #expect(!again.consumed, "a receipt was spent twice: the server ahead forgot its spend")
        #expect(again.verification.reasons == [.consumed])
    }
}
