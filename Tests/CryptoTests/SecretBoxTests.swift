import Crypto
import Testing

@Suite struct SecretBoxTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let nonce: String
        let plaintext: String
        let associatedData: String
        let ciphertext: String
        let tag: String
        var testDescription: String { name }
    }

    /// AES-256 cases 13–16 of McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", Appendix B
    /// (the vectors NIST's GCM validation and Wycheproof start from).
    static let vectors: [Vector] = [
        Vector(name: "GCM test case 13", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
               plaintext: "", associatedData: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(name: "GCM test case 14", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
               plaintext: String(repeating: "00", count: 16), associatedData: "",
               ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(name: "GCM test case 15",
               key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", nonce: "cafebabefacedbaddecaf888",
               plaintext: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
               associatedData: "",
               ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
               tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(name: "GCM test case 16",
               key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", nonce: "cafebabefacedbaddecaf888",
               plaintext: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
               associatedData: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
               ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
               tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors)
    func knownAnswers(vector: Vector) throws {
        let box = try SecretBox(key: try hex(vector.key))
        let nonce = try hex(vector.nonce)
        let plaintext = try hex(vector.plaintext)
        let associatedData = try hex(vector.associatedData)
        let sealed = try box.seal(plaintext, associatedData: associatedData, nonce: nonce)
        #expect(sealed == [1] + nonce + (try hex(vector.ciphertext)) + (try hex(vector.tag)))
        #expect(try box.open(sealed, associatedData: associatedData) == plaintext)
    }

    @Test func layoutAndFreshNonces() throws {
        let box = try SecretBox(key: try SecureRandom.bytes(32))
        let first = try box.seal(Array("secret".utf8), associatedData: Array("env-1".utf8))
        let second = try box.seal(Array("secret".utf8), associatedData: Array("env-1".utf8))
        #expect(first.count == 1 + 12 + 6 + 16)
        #expect(first[0] == 1)
        #expect(first[1...12] != second[1...12])
    }

    @Test(arguments: [0, 1, 15, 16, 17, 4096, 1 << 20])
    func roundTrips(length: Int) throws {
        let box = try SecretBox(key: try SecureRandom.bytes(32))
        let plaintext = try SecureRandom.bytes(length)
        let sealed = try box.seal(plaintext, associatedData: [])
        #expect(try box.open(sealed, associatedData: []) == plaintext)
    }

    /// Flipping any bit anywhere (version, nonce, ciphertext, tag) makes `open` throw.
    @Test func everyTamperedByteThrows() throws {
        let box = try SecretBox(key: try SecureRandom.bytes(32))
        let associatedData = Array("environment 7".utf8)
        let sealed = try box.seal(Array("play integrity key".utf8), associatedData: associatedData)
        var failures = 0
        for index in sealed.indices {
            for bit in [0, 7] {
                var tampered = sealed
                tampered[index] ^= 1 << UInt8(bit)
                do {
                    _ = try box.open(tampered, associatedData: associatedData)
                } catch is CryptoError {
                    failures += 1
                }
            }
        }
        #expect(failures == sealed.count * 2)
    }

    @Test func wrongKeyWrongAssociatedDataTruncatedAndUnknownVersionThrow() throws {
        let box = try SecretBox(key: try SecureRandom.bytes(32))
        let other = try SecretBox(key: try SecureRandom.bytes(32))
        let sealed = try box.seal(Array("secret".utf8), associatedData: Array("env-1".utf8))
        #expect(throws: CryptoError.self) { try other.open(sealed, associatedData: Array("env-1".utf8)) }
        #expect(throws: CryptoError.self) { try box.open(sealed, associatedData: Array("env-2".utf8)) }
        #expect(throws: CryptoError.self) { try box.open(sealed, associatedData: []) }
        #expect(throws: CryptoError.self) { try box.open(Array(sealed.dropLast()), associatedData: Array("env-1".utf8)) }
        #expect(throws: CryptoError.self) { try box.open(Array(sealed.prefix(28)), associatedData: Array("env-1".utf8)) }
        #expect(throws: CryptoError.self) { try box.open([], associatedData: []) }
        var version2 = sealed
        version2[0] = 2
        #expect(throws: CryptoError.self) { try box.open(version2, associatedData: Array("env-1".utf8)) }
        // Still fine with the right inputs.
        #expect(try box.open(sealed, associatedData: Array("env-1".utf8)) == Array("secret".utf8))
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func rejectsKeyLength(length: Int) {
        #expect(throws: CryptoError.self) { try SecretBox(key: [UInt8](repeating: 7, count: length)) }
    }

    @Test func neverPrintsTheKey() throws {
        let key = [UInt8](repeating: 0xAB, count: 32)
        let box = try SecretBox(key: key)
        var dumped = ""
        dump(box, to: &dumped)
        for text in [String(describing: box), String(reflecting: box), dumped] {
            #expect(!text.contains("171"))
            #expect(!text.lowercased().contains("ab, "))
        }
    }
}
