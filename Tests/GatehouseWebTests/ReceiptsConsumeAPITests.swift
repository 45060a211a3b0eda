@testable import Gatehouse
import Foundation
import JSON
import Simulator
import Storage
import TestThreads
import Testing

/// `"consume": true` on `POST /api/v4/receipts/verify` (docs/device-api.md "Receipts spent once"), over a real socket:
/// a receipt that is otherwise valid is spent by the first consuming call, and from then on every check of it is
/// `consumed`; an invalid receipt is never spent; the spend is durable and purged after the receipt's `exp`.
@Suite("Receipts spent once", .needsSyntheticCA)
struct ReceiptsConsumeAPITests {
    let fixture: ReceiptsFixture

    init() throws {
        fixture = try ReceiptsFixture()
    }

    /// Verifies `token` (for `GET /api/orders?page=2`) with `proof`, consuming when `consume`; returns the answer.
    func check(_ token: String, proof: String?, consume: Bool?, secret: String? = nil) throws -> JSON {
        var body: JSON = ["token": .string(token), "method": "GET", "pathAndQuery": "/api/orders?page=2", "proof": .optional(proof)]
        if let consume, case .object(let members) = body { body = .object(members + [JSON.Member("consume", .bool(consume))]) }
        let response = try fixture.verify(body, secret: secret)
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json)
    }

    /// Rows of `consumed_receipts`, read from the database file.
    func keptRows() throws -> Int64 {
        try fixture.app.application.domain.store.database.read { try $0.queryOne("SELECT count(*) FROM consumed_receipts")?.value(at: 0).int64 } ?? -1
    }

    @Test func theFirstConsumingCallSpendsItAndEveryLaterCheckIsConsumed() throws {
        let token = try fixture.issue()
        let plain = try check(token, proof: try fixture.proof(), consume: nil)
        #expect(plain["valid"] == true && plain["consumed"] == false, "a check without consume spends nothing")
        #expect(try check(token, proof: try fixture.proof(), consume: false)["valid"] == true)

        let first = try check(token, proof: try fixture.proof(), consume: true)
        #expect(first["valid"] == true)
        #expect(first["consumed"] == true)
        #expect(first.reasons == [])

        let again = try check(token, proof: try fixture.proof(), consume: true)
        #expect(again["valid"] == false)
        #expect(again["consumed"] == false)
        #expect(again.reasons == ["consumed"])
        let without = try check(token, proof: try fixture.proof(), consume: nil)
        #expect(without["valid"] == false && without.reasons == ["consumed"])
        #expect(without["environment"]?.string == fixture.environmentID, "the claims are still reported")

        // Another receipt of the same environment is untouched.
        #expect(try check(try fixture.issue(), proof: try fixture.proof(), consume: nil)["valid"] == true)

        let metrics = fixture.app.send("GET", "/metrics").text
        #expect(metrics.contains(#"gatehouse_receipts_consume_total{result="consumed"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"gatehouse_receipts_consume_total{result="refused"} 2"#))
    }

    @Test func ofTenConcurrentConsumingCallsExactlyOneIsValid() throws {
        let token = try fixture.issue(bound: false)
        let client = fixture.client
        let secret = fixture.secret
        let body = (["token": .string(token), "method": "POST", "pathAndQuery": "/api/pay", "consume": true] as JSON).serialized()
        let answers = concurrently(10) { _ -> String in
            guard let response = try? client.send("POST", "/api/v4/receipts/verify",
                                                  headers: [("Authorization", "Bearer " + secret), ("Content-Type", "application/json")], body: body),
                  response.status == 200, let json = response.json
            else { return "failed" }
            return json["valid"] == true ? (json["consumed"] == true ? "spent" : "valid, not spent") : json.reasons.joined(separator: ",")
        }
        #expect(answers.filter { $0 == "spent" }.count == 1, "\(answers)")
        #expect(answers.filter { $0 == "consumed" }.count == 9, "\(answers)")
        #expect(try keptRows() == 1)
    }

    @Test func aBoundReceiptWithoutItsProofIsNotSpentThenWithItIs() throws {
        let token = try fixture.issue()
        let missing = try check(token, proof: nil, consume: true)
        #expect(missing.reasons == ["session:proof"])
        #expect(missing["consumed"] == false)
        let stale = try check(token, proof: try fixture.proof(age: 180_000), consume: true)
        #expect(stale.reasons == ["session:proof"])
        #expect(try keptRows() == 0, "an invalid receipt is never spent")

        let proven = try check(token, proof: try fixture.proof(), consume: true)
        #expect(proven["valid"] == true && proven["consumed"] == true)
        #expect(try check(token, proof: nil, consume: true).reasons == ["session:proof", "consumed"])
    }

    @Test func anotherEnvironmentsSecretKeyIsWrongEnvironmentAndSpendsNothing() throws {
        let token = try fixture.issue()
        let elsewhere = try check(token, proof: try fixture.proof(), consume: true, secret: fixture.otherSecret)
        #expect(elsewhere.reasons == ["wrongEnvironment"])
        #expect(elsewhere["consumed"] == false)
        #expect(try keptRows() == 0)
        let home = try check(token, proof: try fixture.proof(), consume: true)
        #expect(home["valid"] == true && home["consumed"] == true)
        // Spent at home; the other environment's key still learns only that it is not its receipt.
        #expect(try check(token, proof: try fixture.proof(), consume: nil, secret: fixture.otherSecret).reasons == ["wrongEnvironment"])
    }

    @Test func anExpiredOrForgedReceiptIsNotSpent() throws {
        let token = try fixture.issue(bound: false)
        fixture.app.clock.advance(by: 600)
        #expect(try check(token, proof: nil, consume: true).reasons == ["expired"])
        #expect(try check("a.b.c", proof: nil, consume: true).reasons == ["malformed"])
        #expect(try keptRows() == 0)
    }

    @Test func consumeOtherThanABooleanIsRefusedByPointer() throws {
        let token = try fixture.issue(bound: false)
        for value in ["yes", 1, [true]] as [JSON] {
            let response = try fixture.verify(["token": .string(token), "method": "GET", "pathAndQuery": "/", "consume": value])
            #expect(response.status == 400, "\(value)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } == ["/consume"])
        }
        #expect(try keptRows() == 0)
        #expect(try check(token, proof: nil, consume: nil)["valid"] == true, "the refused calls spent nothing")
    }

    @Test func theSpendIsKeptUntilTheReceiptsExpiryThenPurged() throws {
        let token = try fixture.issue(bound: false)
        let spent = try check(token, proof: nil, consume: true)
        #expect(spent["consumed"] == true)
        let checker = fixture.app.application.domain.receiptChecker
        fixture.app.clock.advance(by: 599)                      // the receipt's last valid second
        #expect(try checker.purgeExpired() == 0)
        #expect(try keptRows() == 1)
        #expect(try check(token, proof: nil, consume: nil).reasons == ["consumed"])
        fixture.app.clock.advance(by: 1)                        // exp: expired from now on
        #expect(try checker.purgeExpired() == 0, "kept two minutes past exp, for servers whose clocks run ahead")
        fixture.app.clock.advance(by: 120)
        #expect(try checker.purgeExpired() == 1)
        #expect(try keptRows() == 0)
        #expect(try check(token, proof: nil, consume: true).reasons == ["expired"], "and expired is what it stays")
        #expect(try keptRows() == 0)
    }
}

/// A spend survives the server's SIGKILL: it was committed before the answer.
@Suite("Receipts spent once, durably", .serialized, .needsSyntheticCA)
struct ReceiptsConsumeDurabilityTests {
    @Test func consumedThenKilledAndRestartedIsStillConsumed() throws {
        let server = try DeviceServer()
        let (_, publicKey, secret) = try server.newEnvironment(kind: "development")

        let envelope = try SignedEnvelope(apiKey: publicKey, platform: "ios", signed: SignedEnvelope.signedText(appID: "com.example.pay"),
                                          timestamp: Int64(Date().timeIntervalSince1970 * 1000))
        let assessed = try server.client.send("POST", "/api/v4/assess", headers: [("Content-Type", "application/json")],
                                              body: envelope.json().serialized())
        #expect(assessed.status == 200, "\(assessed.text)")
        let receipt = try #require(assessed.json?["sessionToken"]?.string)

        func verify(consume: Bool) throws -> JSON {
            let body: JSON = ["token": .string(receipt), "method": "POST", "pathAndQuery": "/api/pay", "consume": .bool(consume)]
            let response = try server.client.send("POST", "/api/v4/receipts/verify",
                                                  headers: [("Authorization", "Bearer " + secret), ("Content-Type", "application/json")],
                                                  body: body.serialized())
            #expect(response.status == 200, "\(response.text)")
            return try #require(response.json)
        }
        let spent = try verify(consume: true)
        #expect(spent["valid"] == true && spent["consumed"] == true, "\(spent)")
        try server.restart(after: SIGKILL)
        #expect(try verify(consume: false).reasons == ["consumed"])
        #expect(try verify(consume: true).reasons == ["consumed"])
    }
}
