import Foundation
import GatehouseReceipts
import JSON
import Testing
import TestSupport

/// The receipt conformance vectors (Tests/Fixtures/receipts/conformance.json, written by `make receipt-vectors`),
/// which the Python and Node libraries' tests read too: `ReceiptVerifier` gives every case's answer (valid, the
/// reasons in order, the claims), so the three libraries answer alike.
@Suite("Receipt conformance vectors")
struct ConformanceVectorsTests {
    static func cases() throws -> [JSON] {
        let path = repositoryRoot + "/Tests/Fixtures/receipts/conformance.json"
        let document = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return document["cases"]?.array ?? []
    }

    @Test func everyCaseGetsItsAnswer() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 50)
        for c in cases {
            let name = c["name"]?.string ?? "?"
            let keys = try JWKS(bytes: try #require(c["jwks"]).serialized())
            var policy = ReceiptPolicy()
            if let p = c["policy"], p != .null {
                policy = ReceiptPolicy(requiresBound: p["bound"] == true, requiresVerifiedAttestation: p["attestation"] == "verified", allowsDebug: p["debug"] == true)
            }
            let verifier = ReceiptVerifier(keys: keys, environment: try #require(c["environment"]?.string), policy: policy)
            let request = try #require(c["request"])
            let answer = verifier.verify(try #require(c["token"]?.string), method: try #require(request["method"]?.string),
                                         pathAndQuery: try #require(request["pathAndQuery"]?.string), proof: request["proof"]?.string,
                                         nowMilliseconds: Int64(try #require(c["nowMs"]?.integer)))
            let expected = try #require(c["expected"])
            #expect(answer.valid == (expected["valid"] == true), "\(name)")
            #expect(answer.reasons.map { JSON.string($0.rawValue) } == expected["reasons"]?.array, "\(name)")
            #expect((answer.claims?.json ?? .null) == expected["claims"], "\(name)")
        }
    }

    @Test func theVectorsCoverEveryReason() throws {
        let reasons = Set(try Self.cases().flatMap { $0["expected"]?["reasons"]?.array?.compactMap(\.string) ?? [] })
        // `consumed` is the server's alone: an offline check cannot know what was spent.
        #expect(reasons == Set(ReceiptReason.allCases.map(\.rawValue)).subtracting(["consumed"]))
    }
}
