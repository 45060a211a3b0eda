import TestSupport
import Crypto
import Testing

/// Real Apple certificates: what the attestation verifier will feed this module.
@Suite struct AppAttestChainTests {
    func chain() throws -> (leaf: Certificate, intermediate: Certificate, root: Certificate) {
        let leafDER = try #require(Base64.decode(AppleExampleAttestation.leafBase64.filter { !$0.isWhitespace }))
        let intermediateDER = try #require(Base64.decode(AppleExampleAttestation.intermediateBase64.filter { !$0.isWhitespace }))
        return (try Certificate(der: leafDER), try Certificate(der: intermediateDER), try Certificate(pem: try appleAppAttestationRootPEM()))
    }

    @Test func verifiesAtTheAttestationTime() throws {
        let (leaf, intermediate, root) = try chain()
        try Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], root: root, at: AppleExampleAttestation.validAt)
        #expect(leaf.notBefore == 1_713_370_493)  // 2024-04-17T16:14:53Z
        #expect(leaf.notAfter == 1_713_629_693)  // 2024-04-20T16:14:53Z
        #expect(intermediate.subject == "ST=California,O=Apple Inc.,CN=Apple App Attestation CA 1")
    }

    @Test func expiresAfterTheLeafsNotAfter() throws {
        let (leaf, intermediate, root) = try chain()
        let error = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], root: root, at: leaf.notAfter + 86_400)
        }
        #expect(error.reason == .expired)
    }

    @Test func refusesOurOwnRootForApplesChain() throws {
        let (leaf, intermediate, _) = try chain()
        let error = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], root: intermediate,
                                        at: AppleExampleAttestation.validAt)
        }
        #expect(error.reason == .untrusted)
    }

    @Test func readsTheNonceExtensionAndTheAttestedKey() throws {
        let (leaf, _, _) = try chain()
        let nonce = try hex(AppleExampleAttestation.nonce)
        #expect(leaf.extensionValue(oid: "1.2.840.113635.100.8.2") == [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce)
        let key = try ECPublicKey(derSubjectPublicKeyInfo: leaf.publicKeyDER)
        #expect(key.x962 == (try hex(AppleExampleAttestation.x962)))
        // App Attest's key id is SHA-256 of the X9.62 point; the vector's keyId is bSrEhF8TIzIvWSPwvZ0i2+UOBre4ASH84rK15m6emNY=.
        #expect(Base64.encode(SHA256.hash(key.x962)) == "bSrEhF8TIzIvWSPwvZ0i2+UOBre4ASH84rK15m6emNY=")
    }
}
