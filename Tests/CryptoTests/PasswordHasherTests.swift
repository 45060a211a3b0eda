import Crypto
import Testing

@Suite struct Argon2Tests {
    /// RFC 9106 §5.3 (Argon2id, version 0x13).
    @Test func rfc9106Argon2idVector() throws {
        let tag = try Argon2.hash(
            variant: .id,
            password: [UInt8](repeating: 0x01, count: 32),
            salt: [UInt8](repeating: 0x02, count: 16),
            secret: [UInt8](repeating: 0x03, count: 8),
            associatedData: [UInt8](repeating: 0x04, count: 12),
            memoryKiB: 32, iterations: 3, parallelism: 4, hashLength: 32)
        #expect(tag == (try hex("0d 64 0d f5 8d 78 76 6c 08 c0 37 a3 4a 8b 53 c9 d0 1e f0 45 2d 75 b6 5e b5 25 20 e9 6b 01 e6 59")))
    }

    /// RFC 9106 §5.1 and §5.2 (Argon2d and Argon2i), same inputs.
    @Test(arguments: [
        (Argon2.Variant.d, "51 2b 39 1b 6f 11 62 97 53 71 d3 09 19 73 42 94 f8 68 e3 be 39 84 f3 c1 a1 3a 4d b9 fa be 4a cb"),
        (Argon2.Variant.i, "c8 14 d9 d1 dc 7f 37 aa 13 f0 d7 7f 24 94 bd a1 c8 de 6b 01 6d d3 88 d2 99 52 a4 c4 67 2b 6c e8"),
    ])
    func rfc9106OtherVariants(variant: Argon2.Variant, expected: String) throws {
        let tag = try Argon2.hash(
            variant: variant, password: [UInt8](repeating: 0x01, count: 32), salt: [UInt8](repeating: 0x02, count: 16),
            secret: [UInt8](repeating: 0x03, count: 8), associatedData: [UInt8](repeating: 0x04, count: 12),
            memoryKiB: 32, iterations: 3, parallelism: 4, hashLength: 32)
        #expect(tag == (try hex(expected)))
    }

    @Test func rejectsParametersLibargon2Refuses() {
        #expect(throws: CryptoError.self) {
            try Argon2.hash(variant: .id, password: [], salt: [1, 2, 3], memoryKiB: 64, iterations: 1, parallelism: 1, hashLength: 32)
        }
        #expect(throws: CryptoError.self) {
            try Argon2.hash(variant: .id, password: [], salt: [UInt8](repeating: 0, count: 16), memoryKiB: 4, iterations: 1,
                            parallelism: 1, hashLength: 32)
        }
    }
}

@Suite struct PasswordHasherTests {
    /// Cheap parameters so the suite stays fast; the format and logic are the same as the default's.
    static let cheap = Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1)

    @Test func defaultParametersFollowRFC9106AndOWASP() {
        let parameters = Argon2Parameters.default
        #expect(parameters.memoryKiB >= 19 * 1024)
        #expect(parameters.iterations >= 2)
        #expect(parameters.parallelism == 1)
        #expect(parameters.saltLength == 16)
        #expect(parameters.hashLength == 32)
    }

    @Test func hashesAndVerifies() throws {
        let hasher = PasswordHasher(parameters: Self.cheap)
        let encoded = try hasher.hash("correct horse battery staple")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=64,t=2,p=1$"))
        let fields = encoded.split(separator: "$")
        #expect(fields.count == 5)
        #expect(Base64.decode(String(fields[3]))?.count == 16)
        #expect(Base64.decode(String(fields[4]))?.count == 32)
        #expect(hasher.verify("correct horse battery staple", encoded: encoded))
        #expect(!hasher.verify("correct horse battery stapl", encoded: encoded))
        #expect(!hasher.verify("", encoded: encoded))
        #expect(try hasher.hash("correct horse battery staple") != encoded)
    }

    @Test func hashesWithTheDefaultParameters() throws {
        let hasher = PasswordHasher()
        let encoded = try hasher.hash("pässwörd ✓")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=\(Argon2Parameters.default.memoryKiB),t=\(Argon2Parameters.default.iterations),p=1$"))
        #expect(hasher.verify("pässwörd ✓", encoded: encoded))
        #expect(!hasher.needsRehash(encoded))
    }

    /// PHC strings made by another implementation (OpenSSL's Argon2 through Python `cryptography` 48,
    /// `Argon2id(salt:length=32,iterations=2,lanes=1,memory_cost=64).derive_phc_encoded(password)`),
    /// so verification does not only check our own encoder against itself.
    @Test(arguments: [
        ("password", 8, "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI"),
        ("pässwörd ✓", 16, "$argon2id$v=19$m=64,t=2,p=1$MDEyMzQ1Njc4OWFiY2RlZg$gbVb5HoloyLqus3G2lsvECiPhnuxA5K+W7s4Am0YEhg"),
    ])
    func verifiesHashesFromAnotherImplementation(password: String, saltLength: Int, encoded: String) {
        let hasher = PasswordHasher(parameters: Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1, saltLength: saltLength))
        #expect(hasher.verify(password, encoded: encoded))
        #expect(!hasher.verify(password.uppercased(), encoded: encoded))
        #expect(!hasher.needsRehash(encoded))
        var flipped = Array(encoded.utf8)
        flipped[flipped.count - 2] = flipped[flipped.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!hasher.verify(password, encoded: String(decoding: flipped, as: UTF8.self)))
    }

    @Test func needsRehashWhenAnythingDiffers() throws {
        let hasher = PasswordHasher(parameters: Self.cheap)
        let encoded = try hasher.hash("pw")
        #expect(!hasher.needsRehash(encoded))
        for other in [
            Argon2Parameters(memoryKiB: 128, iterations: 2, parallelism: 1),
            Argon2Parameters(memoryKiB: 64, iterations: 3, parallelism: 1),
            Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 2),
            Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1, saltLength: 32),
            Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1, hashLength: 64),
        ] {
            #expect(PasswordHasher(parameters: other).needsRehash(encoded))
        }
        let argon2i = encoded.replacingOccurrences(of: "$argon2id$", with: "$argon2i$")
        #expect(hasher.needsRehash(argon2i))
        #expect(hasher.needsRehash("not a hash"))
    }

    /// A valid hash of "password" (see `verifiesHashesFromAnotherImplementation`); the malformed cases below
    /// are variations of it that a lenient parser would still verify.
    static let valid = "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI"
    static let salt8 = PasswordHasher(parameters: Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1, saltLength: 8))

    @Test(arguments: [
        "",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$",
        "argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2x$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$Argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=16$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$t=2,m=64,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=064,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=+64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=1,x=3$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=1,$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64 ,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ=$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI=",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI$",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI\n",
        " $argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSJ",
    ])
    func malformedEncodedStringsDoNotVerify(encoded: String) {
        #expect(Self.salt8.verify("password", encoded: Self.valid))
        #expect(!Self.salt8.verify("password", encoded: encoded))
        #expect(Self.salt8.needsRehash(encoded))
    }

    /// Costs beyond the verification bounds are refused before any memory is allocated.
    @Test(arguments: [
        "$argon2id$v=19$m=4194304,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=99999999999,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=1000,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=0,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=0$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=16$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=1$c29t$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI",
        "$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNG",
    ])
    func outOfBoundsEncodedStringsDoNotVerify(encoded: String) {
        #expect(!Self.salt8.verify("password", encoded: encoded))
        #expect(Self.salt8.needsRehash(encoded))
    }

    @Test func refusesParametersOutsideTheVerifiableRange() {
        #expect(throws: CryptoError.self) {
            try PasswordHasher(parameters: Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1, saltLength: 4)).hash("pw")
        }
        #expect(throws: CryptoError.self) {
            try PasswordHasher(parameters: Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1, hashLength: 8)).hash("pw")
        }
    }
}
