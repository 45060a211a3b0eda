import Attestation
import AttestationTesting
import Crypto
import Testing

@Suite struct PlayIntegrityKeysTests {
    @Test func readsKeysAsPlayConsoleHandsThemOut() throws {
        let minter = try PlayIntegrityMinter.random()
        let keys = try PlayIntegrityKeys(decryptionKeyBase64: minter.decryptionKeyBase64, verificationKeyBase64: minter.verificationKeyBase64)
        #expect(keys.decryptionKey == minter.decryptionKey)
        #expect(keys.verificationKey.x962 == minter.signingKey.publicKey.x962)
        // Pasted with line breaks, or in the URL-safe alphabet without padding.
        let wrapped = String(minter.verificationKeyBase64.prefix(40)) + "\n" + String(minter.verificationKeyBase64.dropFirst(40)) + "\n"
        let urlSafe = Base64.encode(minter.decryptionKey, alphabet: .urlSafe, padded: false)
        #expect(try PlayIntegrityKeys(decryptionKeyBase64: " " + urlSafe, verificationKeyBase64: wrapped).decryptionKey == minter.decryptionKey)
    }

    @Test func namesTheFieldThatCannotBeAPlayKey() throws {
        let minter = try PlayIntegrityMinter.random()
        let rsa = Base64.encode(try RSAPrivateKey.generate().publicKey.derSubjectPublicKeyInfo)
        let cases: [(String, String, PlayIntegrityKeyError.Field)] = [
            (Base64.encode(try SecureRandom.bytes(16)), minter.verificationKeyBase64, .decryptionKey),
            ("not base64!", minter.verificationKeyBase64, .decryptionKey),
            (minter.decryptionKeyBase64, minter.decryptionKeyBase64, .verificationKey),
            (minter.decryptionKeyBase64, rsa, .verificationKey),
            (minter.decryptionKeyBase64, "%%%", .verificationKey),
        ]
        for (decryption, verification, field) in cases {
            #expect(throws: PlayIntegrityKeyError.self) {
                try PlayIntegrityKeys(decryptionKeyBase64: decryption, verificationKeyBase64: verification)
            }
            do {
                _ = try PlayIntegrityKeys(decryptionKeyBase64: decryption, verificationKeyBase64: verification)
            } catch {
                #expect(error.field == field)
                #expect(!error.message.contains(decryption) && !error.message.contains(verification))
            }
        }
    }

    @Test func neverDescribesTheDecryptionKey() throws {
        let minter = try PlayIntegrityMinter.random()
        let keys = try minter.keys()
        var dumped = ""
        dump(keys, to: &dumped)
        for text in ["\(keys)", String(reflecting: keys), dumped, "\(PlayIntegrityDecoder(keys: keys))"] {
            #expect(!text.contains(minter.decryptionKeyBase64))
            #expect(!text.contains(Hex.encode(minter.decryptionKey)))
            #expect(!text.contains("\(minter.decryptionKey)"))
        }
    }
}
