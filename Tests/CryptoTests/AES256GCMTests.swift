import Crypto
import Testing

@Suite struct AES256GCMTests {
    /// The GCM specification's test case 16 (AES-256, 60-byte plaintext, 20 bytes of associated data).
    @Test func matchesGCMTestCase16() throws {
        let key = try hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let iv = try hex("cafebabefacedbaddecaf888")
        let aad = try hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let plaintext = try hex("""
            d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
            """)
        let ciphertext = try hex("""
            522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662
            """)
        let tag = try hex("76fc6ece0f4e1768cddf8853bb2d551b")
        let sealed = try AES256GCM.encrypt(plaintext, key: key, iv: iv, associatedData: aad)
        #expect(sealed.ciphertext == ciphertext)
        #expect(sealed.tag == tag)
        #expect(try AES256GCM.decrypt(ciphertext, key: key, iv: iv, associatedData: aad, tag: tag) == plaintext)
    }

    /// RFC 7516 Appendix A.1: the A256GCM content encryption of a JWE, with the protected header's text as AAD.
    @Test func decryptsTheRFC7516ExampleContent() throws {
        let cek: [UInt8] = [177, 161, 244, 128, 84, 143, 225, 115, 63, 180, 3, 255, 107, 154, 212, 246,
                            138, 7, 110, 91, 112, 46, 34, 105, 47, 130, 203, 46, 122, 234, 64, 252]
        let iv: [UInt8] = [227, 197, 117, 252, 2, 219, 233, 68, 180, 225, 77, 219]
        let aad = Array("eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ".utf8)
        let ciphertext = try #require(Base64.decode("5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A"))
        let tag = try #require(Base64.decode("XFBoMYUZodetZdvTiFvSkQ"))
        let plaintext = try AES256GCM.decrypt(ciphertext, key: cek, iv: iv, associatedData: aad, tag: tag)
        #expect(String(decoding: plaintext, as: UTF8.self) == "The true sign of intelligence is not knowledge but imagination.")
    }

    @Test func refusesAnythingAlteredAndWrongLengths() throws {
        let key = try SecureRandom.bytes(32)
        let iv = try SecureRandom.bytes(12)
        let aad = Array("header".utf8)
        let plaintext = Array("payload".utf8)
        let (ciphertext, tag) = try AES256GCM.encrypt(plaintext, key: key, iv: iv, associatedData: aad)
        #expect(try AES256GCM.decrypt(ciphertext, key: key, iv: iv, associatedData: aad, tag: tag) == plaintext)

        var alteredCiphertext = ciphertext
        alteredCiphertext[0] ^= 1
        var alteredTag = tag
        alteredTag[15] ^= 1
        var alteredIV = iv
        alteredIV[0] ^= 1
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(alteredCiphertext, key: key, iv: iv, associatedData: aad, tag: tag) }
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(ciphertext, key: key, iv: iv, associatedData: aad, tag: alteredTag) }
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(ciphertext, key: key, iv: alteredIV, associatedData: aad, tag: tag) }
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(ciphertext, key: key, iv: iv, associatedData: [], tag: tag) }
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(ciphertext, key: try SecureRandom.bytes(32), iv: iv, associatedData: aad, tag: tag) }
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(ciphertext, key: key, iv: iv, associatedData: aad, tag: Array(tag.prefix(12))) }
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(ciphertext, key: key, iv: iv + [0], associatedData: aad, tag: tag) }
        #expect(throws: CryptoError.self) { try AES256GCM.decrypt(ciphertext, key: Array(key.prefix(16)), iv: iv, associatedData: aad, tag: tag) }
    }

    @Test func handlesEmptyPlaintextAndAssociatedData() throws {
        let key = try SecureRandom.bytes(32)
        let iv = try SecureRandom.bytes(12)
        let (ciphertext, tag) = try AES256GCM.encrypt([], key: key, iv: iv, associatedData: [])
        #expect(ciphertext.isEmpty)
        #expect(try AES256GCM.decrypt([], key: key, iv: iv, associatedData: [], tag: tag) == [])
    }
}
