import Crypto
import Testing

@Suite struct SHA256Tests {
    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf") and the empty message.
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownAnswers(message: String, digest: String) throws {
        let expected = try hex(digest)
        #expect(SHA256.hash(message) == expected)
        #expect(SHA256.hash(Array(message.utf8)) == expected)
    }

    @Test func oneMillionA() throws {
        let expected = try hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == expected)
        // A sequence without contiguous storage takes the copying path.
        #expect(SHA256.hash((0..<1_000_000).lazy.map { _ in UInt8(ascii: "a") }) == expected)
    }
}

@Suite struct HMACSHA256Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { "RFC 4231 test case \(name)" }
    }

    /// RFC 4231 §4.2–4.8; test case 5's MAC is truncated to 128 bits, so the prefix is compared.
    static let vectors: [Vector] = [
        Vector(name: "1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
               mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(name: "2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
               mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(name: "3", key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
               mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(name: "4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
               mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(name: "5 (truncated)", key: [UInt8](repeating: 0x0c, count: 20), data: Array("Test With Truncation".utf8),
               mac: "a3b6167473100ee06e0c796c2955552b"),
        Vector(name: "6", key: [UInt8](repeating: 0xaa, count: 131),
               data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
               mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(name: "7", key: [UInt8](repeating: 0xaa, count: 131),
               data: Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                   + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
               mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: vectors)
    func rfc4231(vector: Vector) throws {
        let expected = try hex(vector.mac)
        let mac = HMACSHA256.authenticate(vector.data, key: vector.key)
        #expect(mac.count == 32)
        #expect(Array(mac.prefix(expected.count)) == expected)
    }

    @Test func emptyKeyAndMessage() {
        // Python's hmac.new(b"", b"", hashlib.sha256).hexdigest().
        #expect(Hex.encode(HMACSHA256.authenticate([], key: []))
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}

@Suite struct ConstantTimeAndRandomTests {
    @Test(arguments: [
        ([], [], true),
        ([1, 2, 3], [1, 2, 3], true),
        ([1, 2, 3], [1, 2, 4], false),
        ([9, 2, 3], [1, 2, 3], false),
        ([1, 2, 3], [1, 2], false),
        ([], [0], false),
    ] as [([UInt8], [UInt8], Bool)])
    func constantTimeEquality(a: [UInt8], b: [UInt8], equal: Bool) {
        #expect(constantTimeEquals(a, b) == equal)
    }

    @Test func randomBytes() throws {
        #expect(try SecureRandom.bytes(0).isEmpty)
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(throws: CryptoError.self) { try SecureRandom.bytes(-1) }
    }
}
