import Crypto
import Testing

@Suite struct ECPrivateKeyTests {
    @Test func signsWhatItsPublicKeyVerifies() throws {
        let key = try ECPrivateKey.generate()
        let message = Array("attested".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.first == 0x30)
        #expect(key.publicKey.isValidSignature(signature, format: .der, for: message))
        #expect(!key.publicKey.isValidSignature(signature, format: .der, for: Array("attested!".utf8)))
        #expect(!(try ECPrivateKey.generate()).publicKey.isValidSignature(signature, format: .der, for: message))
        // ECDSA is randomized: two signatures differ, both verify.
        let again = try key.signature(for: message)
        #expect(again != signature)
        #expect(key.publicKey.isValidSignature(again, format: .der, for: message))
    }

    @Test func roundTripsThroughPKCS8() throws {
        let key = try ECPrivateKey.generate()
        let fromDER = try ECPrivateKey(pkcs8DER: key.pkcs8DER)
        let fromPEM = try ECPrivateKey(pem: key.pkcs8PEM)
        #expect(fromDER.publicKey.x962 == key.publicKey.x962)
        #expect(fromPEM.publicKey.x962 == key.publicKey.x962)
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(try ECPrivateKey.generate().publicKey.x962 != key.publicKey.x962)
    }

    @Test func refusesWhatIsNotAP256PrivateKey() {
        #expect(throws: CryptoError.self) { try ECPrivateKey(pkcs8DER: []) }
        #expect(throws: CryptoError.self) { try ECPrivateKey(pkcs8DER: [0x30, 0x03, 0x02, 0x01, 0x00]) }
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        // A P-384 key (SEC 1 PEM, made with `openssl ecparam -name secp384r1 -genkey`) is not P-256.
        let p384 = """
            -----BEGIN EC PRIVATE KEY-----
            MIGkAgEBBDDTS/N4DybNAnutRKyB4Z+M/uiICRNeADK1XoNeRacRRlnzHc9SJc7r
            tTscjkJ+wSqgBwYFK4EEACKhZANiAATl+P9ZFwHC7qev7PXKcHKKw4xdypEswhHB
            ONmmKeYDR7ZNgtP+EMHMSn/QIfk8XUR8wc0vXgk5BHRMvmDAG9xDLZTJ7xzGmv+q
            2IIkPjwkihInMQAqdvoAuApQ3ok13zM=
            -----END EC PRIVATE KEY-----
            """
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: p384) }
    }
}
