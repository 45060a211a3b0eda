import Crypto
import Foundation
import GatehouseReceipts
import Testing

/// The proof a bound receipt needs: fresh, for this method and path, by the receipt's key, raw or DER.
@Suite("Request proofs")
struct RequestProofTests {
    let fixture: ReceiptFixture
    let token: String
    let now = ReceiptFixture.at(30)

    init() throws {
        fixture = try ReceiptFixture()
        token = try fixture.token(bound: true)
    }

    func check(_ proof: String?, method: String = "GET", path: String = "/api/orders?page=2", at: Int64? = nil) -> ReceiptVerification {
        fixture.verifier.verify(token, method: method, pathAndQuery: path, proof: proof, nowMilliseconds: at ?? now)
    }

    @Test func freshProofMakesABoundReceiptValid() throws {
        let result = check(try fixture.proof(at: now - 1500))
        #expect(result.valid, "\(result.reasons)")
        #expect(result.bound)
    }

    @Test func missingProofIsSessionProof() {
        let result = check(nil)
        #expect(result.reasons == [.sessionProof])
        #expect(result.bound)
        #expect(result.environment == ReceiptFixture.environment)  // the claims are still reported
    }

    @Test func proofAtMostTwoMinutesOldAndALittleAhead() throws {
        #expect(check(try fixture.proof(at: now - 120_000)).valid)
        #expect(check(try fixture.proof(at: now - 120_001)).reasons == [.sessionProof])
        #expect(check(try fixture.proof(at: now + 10_000)).valid)
        #expect(check(try fixture.proof(at: now + 10_001)).reasons == [.sessionProof])
    }

    @Test func proofIsForOneMethodAndPath() throws {
        let proof = try fixture.proof("GET", "/api/orders?page=2", at: now)
        #expect(check(proof, path: "/api/orders?page=3").reasons == [.sessionProof])
        #expect(check(proof, path: "/api/orders").reasons == [.sessionProof])
        #expect(check(proof, method: "POST").reasons == [.sessionProof])
        #expect(check(proof, method: "get").reasons == [.sessionProof])
        #expect(check(proof).valid)  // and again within the two minutes: no nonce, by design
    }

    @Test func proofByAnotherKeyFails() throws {
        let stranger = try ECPrivateKey.generate()
        let proof = try RequestProof.sign(method: "GET", pathAndQuery: "/api/orders?page=2", timestamp: now, key: stranger).header
        #expect(check(proof).reasons == [.sessionProof])
    }

    @Test func derAndRawSignaturesBothVerify() throws {
        let message = RequestProof.message(timestamp: now, method: "GET", pathAndQuery: "/api/orders?page=2")
        let der = try fixture.phone.signature(for: message)
        #expect(der.first == 0x30 && der.count != 64)
        let derProof = RequestProof(timestamp: now, signature: der).header
        #expect(check(derProof).valid)
        let raw = try #require(ECPublicKey.rawSignature(der: der))
        #expect(check(RequestProof(timestamp: now, signature: raw).header).valid)
        #expect(try RequestProof(header: derProof).signature == der)
    }

    @Test func proofTimeHasOneSpelling() throws {
        let proof = try RequestProof.sign(method: "GET", pathAndQuery: "/api/orders?page=2", timestamp: now, key: fixture.phone)
        let padded = proof.header.replacingOccurrences(of: "t=", with: "t=0")
        #expect(throws: ReceiptError.self) { try RequestProof(header: padded) }
        #expect(check(padded).reasons == [.sessionProof])
    }

    @Test func proofTimeIsTheSignedTime() throws {
        let proof = try RequestProof.sign(method: "GET", pathAndQuery: "/api/orders?page=2", timestamp: now - 200_000, key: fixture.phone)
        let moved = RequestProof(timestamp: now, signature: proof.signature).header
        #expect(check(moved).reasons == [.sessionProof])
    }

    @Test(arguments: ["", "t=1", "s=AAAA", "t=,s=", "t=12,s=", "s=AAAA,t=12", "t=-5,s=AAAA", "t=1 ,s=AAAA", "t=12,s=AA==",
                      "t=1234567890123456,s=AAAA", "t=12,s=" + String(repeating: "A", count: 600), "t=12,s=A+/A", "t=12,s=AAAA,x=1", "t=012,s=AAAA"])
    func malformedProofsAreRefusedAndNeverTrap(_ header: String) {
        #expect(throws: ReceiptError.self) { try RequestProof(header: header) }
        #expect(check(header).reasons == [.sessionProof])
    }

    @Test func unboundReceiptIgnoresTheProof() throws {
        let unbound = try fixture.token(bound: false)
        #expect(fixture.verifier.verify(unbound, method: "GET", pathAndQuery: "/", proof: nil, nowMilliseconds: now).valid)
        #expect(fixture.verifier.verify(unbound, method: "GET", pathAndQuery: "/", proof: "garbage", nowMilliseconds: now).valid)
    }

    @Test func extremeTimesDoNotTrap() throws {
        let proof = try fixture.proof(at: 999_999_999_999_999)
        #expect(!check(proof, at: Int64.min).valid)
        #expect(!check(proof, at: Int64.max).valid)
    }
}
