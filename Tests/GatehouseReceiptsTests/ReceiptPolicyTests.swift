import Crypto
import GatehouseReceipts
import Testing

/// A backend's policy checked offline (docs/device-api.md "Receipts", `require`): without one an unbound receipt of an
/// unattested request is valid; with one it is not, and says why.
@Suite("Receipt policy")
struct ReceiptPolicyTests {
    let fixture: ReceiptFixture

    init() throws {
        fixture = try ReceiptFixture()
    }

    func check(_ token: String, _ policy: ReceiptPolicy, proof: String? = nil) -> ReceiptVerification {
        ReceiptVerifier(keys: fixture.keys, environment: ReceiptFixture.environment, policy: policy)
            .verify(token, method: "GET", pathAndQuery: "/api/orders?page=2", proof: proof, nowMilliseconds: ReceiptFixture.at(10))
    }

    @Test func anUnboundUnattestedReceiptIsValidOnlyWithoutAPolicy() throws {
        let bare = try fixture.token(bound: false, attestation: nil)
        #expect(check(bare, ReceiptPolicy()).valid)
        #expect(check(bare, ReceiptPolicy(requiresBound: true)).reasons == [.unbound])
        #expect(check(bare, ReceiptPolicy(requiresVerifiedAttestation: true)).reasons == [.unattested])
        #expect(check(bare, .boundAndAttested).reasons == [.unbound, .unattested])
        #expect(check(bare, .boundAndAttested).json["reasons"] == ["unbound", "unattested"])
    }

    @Test func anAttestationThatWasNotVerifiedIsUnattested() throws {
        for status in ["forged", "rejected", "unavailable"] {
            let token = try fixture.token(bound: false, attestation: ReceiptAttestation(provider: "play-integrity", status: status))
            #expect(check(token, ReceiptPolicy(requiresVerifiedAttestation: true)).reasons == [.unattested], "\(status)")
        }
    }

    @Test func aDebugAttestationIsUnattestedUnlessThePolicyAllowsDebug() throws {
        let token = try fixture.token(bound: false, attestation: ReceiptAttestation(provider: "debug", status: "verified"))
        #expect(check(token, ReceiptPolicy(requiresVerifiedAttestation: true)).reasons == [.unattested])
        #expect(check(token, ReceiptPolicy(requiresVerifiedAttestation: true, allowsDebug: true)).valid)
        #expect(check(token, ReceiptPolicy()).valid)
    }

    @Test func aBoundAttestedReceiptWithItsProofMeetsTheStrictPolicy() throws {
        let token = try fixture.token(bound: true)
        let proof = try fixture.proof(at: ReceiptFixture.at(10))
        let result = check(token, .boundAndAttested, proof: proof)
        #expect(result.valid, "\(result.reasons)")
        #expect(result.platform == "ios")
        // The policy adds to the receipt's own checks; it does not replace them.
        #expect(check(token, .boundAndAttested).reasons == [.sessionProof])
    }
}
