import Crypto
import Foundation
import Testing
import TestSupport

@Suite struct ECPublicKeyTests {
    /// RFC 6979 §A.2.5: the P-256 key and its deterministic ECDSA signature with SHA-256 over "sample".
    static let rfc6979Point = "04"
        + "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
        + "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"
    static let rfc6979R = "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
    static let rfc6979S = "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"

    @Test func verifiesTheRFC6979SignatureRawAndDER() throws {
        let key = try ECPublicKey(x962: try hex(Self.rfc6979Point))
        let message = Array("sample".utf8)
        let raw = try hex(Self.rfc6979R + Self.rfc6979S)
        // SEQUENCE { INTEGER 00||r, INTEGER 00||s }: both have the top bit set, so each gets a 0x00 pad.
        let der = try hex("3046 0221 00" + Self.rfc6979R + "0221 00" + Self.rfc6979S)
        #expect(key.isValidSignature(raw, format: .raw, for: message))
        #expect(key.isValidSignature(der, format: .der, for: message))

        #expect(!key.isValidSignature(raw, format: .raw, for: Array("Sample".utf8)))
        #expect(!key.isValidSignature(der, format: .der, for: Array("sample ".utf8)))
        #expect(!key.isValidSignature(der, format: .raw, for: message))
        #expect(!key.isValidSignature(raw, format: .der, for: message))
        #expect(!key.isValidSignature(Array(raw.dropLast()), format: .raw, for: message))
        #expect(!key.isValidSignature([], format: .der, for: message))
        #expect(!key.isValidSignature(der + [0], format: .der, for: message))
        var flipped = raw
        flipped[63] ^= 1
        #expect(!key.isValidSignature(flipped, format: .raw, for: message))
    }

    /// One parsed key is shared by every copy of the value and verifies from many threads at once.
    @Test func oneKeyVerifiesConcurrently() async throws {
        let key = try ECPublicKey(x962: try hex(Self.rfc6979Point))
        let message = Array("sample".utf8)
        let der = try hex("3046 0221 00" + Self.rfc6979R + "0221 00" + Self.rfc6979S)
        let forged = Array(der.dropLast()) + [der[der.count - 1] ^ 1]
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var good = true, bad = false
                    for _ in 0..<50 {
                        good = good && key.isValidSignature(der, format: .der, for: message)
                        bad = bad || key.isValidSignature(forged, format: .der, for: message)
                    }
                    return (good, bad)
                }
            }
            return await group.reduce(into: [(Bool, Bool)]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0.0 && !$0.1 })
    }

    /// Keys imported one after another (and from many threads) each hold their own point: every key verifies its own
    /// signature and no other key's.
    @Test func importedKeysStayDistinct() async throws {
        let message = Array("distinct".utf8)
        let signers = try (0..<4).map { _ in try ECPrivateKey.generate() }
        let signatures = try signers.map { try $0.signature(for: message) }
        let points = signers.map(\.publicKey.x962)
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for _ in 0..<25 {
                        for (i, point) in points.enumerated() {
                            guard let key = try? ECPublicKey(x962: point), key.x962 == point else { wrong += 1; continue }
                            for (j, signature) in signatures.enumerated()
                            where key.isValidSignature(signature, format: .der, for: message) != (i == j) {
                                wrong += 1
                            }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func encodingsRoundTrip() throws {
        let point = try hex(Self.rfc6979Point)
        let key = try ECPublicKey(x962: point)
        #expect(key.x962 == point)
        #expect(key.derSubjectPublicKeyInfo.count == 91)
        let again = try ECPublicKey(derSubjectPublicKeyInfo: key.derSubjectPublicKeyInfo)
        #expect(again.x962 == point)
    }

    @Test func verifiesWhatTheOpenSSLToolSigns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"], in: directory.path)
        try openssl(["pkey", "-in", "key.pem", "-pubout", "-out", "public.pem"], in: directory.path)
        try openssl(["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "public.der"], in: directory.path)
        try openssl(["ec", "-in", "key.pem", "-pubout", "-conv_form", "compressed", "-outform", "DER", "-out", "compressed.der"],
                    in: directory.path)
        let message = try SecureRandom.bytes(300)
        try writeBytes(message, to: directory.file("message.bin"))
        try openssl(["dgst", "-sha256", "-sign", "key.pem", "-out", "signature.der", "message.bin"], in: directory.path)

        let fromPEM = try ECPublicKey(pem: try readText(directory.file("public.pem")))
        let fromDER = try ECPublicKey(derSubjectPublicKeyInfo: try readBytes(directory.file("public.der")))
        let compressed = try readBytes(directory.file("compressed.der"))
        let fromCompressed = try ECPublicKey(derSubjectPublicKeyInfo: compressed)
        #expect(fromDER.derSubjectPublicKeyInfo == (try readBytes(directory.file("public.der"))))
        #expect(fromPEM.x962 == fromDER.x962)
        #expect(fromCompressed.x962 == fromDER.x962)
        #expect(compressed.count < fromDER.derSubjectPublicKeyInfo.count)

        let signature = try readBytes(directory.file("signature.der"))
        #expect(fromPEM.isValidSignature(signature, format: .der, for: message))
        var tampered = message
        tampered[0] ^= 0x80
        #expect(!fromPEM.isValidSignature(signature, format: .der, for: tampered))
    }

    @Test(arguments: [
        ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "key.pem"],
        ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp256k1", "-out", "key.pem"],
        ["genpkey", "-algorithm", "ED25519", "-out", "key.pem"],
        ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "key.pem"],
    ])
    func refusesOtherCurvesAndAlgorithms(generate: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(generate, in: directory.path)
        try openssl(["pkey", "-in", "key.pem", "-pubout", "-out", "public.pem"], in: directory.path)
        try openssl(["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "public.der"], in: directory.path)
        #expect(throws: CryptoError.self) { try ECPublicKey(pem: try readText(directory.file("public.pem"))) }
        #expect(throws: CryptoError.self) { try ECPublicKey(derSubjectPublicKeyInfo: try readBytes(directory.file("public.der"))) }
    }

    @Test func refusesBadPoints() throws {
        let point = try hex(Self.rfc6979Point)
        var offCurve = point
        offCurve[64] ^= 1
        #expect(throws: CryptoError.self) { try ECPublicKey(x962: offCurve) }
        var compressedPrefix = point
        compressedPrefix[0] = 0x02
        #expect(throws: CryptoError.self) { try ECPublicKey(x962: compressedPrefix) }
        #expect(throws: CryptoError.self) { try ECPublicKey(x962: Array(point.dropLast())) }
        #expect(throws: CryptoError.self) { try ECPublicKey(x962: [UInt8](repeating: 0, count: 65)) }
        let spki = try ECPublicKey(x962: point).derSubjectPublicKeyInfo
        #expect(throws: CryptoError.self) { try ECPublicKey(derSubjectPublicKeyInfo: spki + [0]) }
        #expect(throws: CryptoError.self) { try ECPublicKey(derSubjectPublicKeyInfo: Array(spki.dropLast())) }
        #expect(throws: CryptoError.self) { try ECPublicKey(derSubjectPublicKeyInfo: []) }
        // The usual SPKI (uncompressed point) is imported as its point: an off-curve one is refused there too.
        var offCurveSPKI = spki
        offCurveSPKI[90] ^= 1
        #expect(throws: CryptoError.self) { try ECPublicKey(derSubjectPublicKeyInfo: offCurveSPKI) }
        #expect(throws: CryptoError.self) { try ECPublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
    }
}

/// One key verifying and one signer signing from many threads at once: the prepared contexts each keeps (the key's,
/// from its second verification; the signer's) are copied, never shared in use, so every answer is the one a lone
/// call gives.
@Suite struct PreparedContextTests {
    @Test func oneKeyVerifiesFromManyThreadsAtOnceAndTellsGoodFromBad() throws {
        let signer = try ECSigningKey(try ECPrivateKey.generate())
        let key = signer.privateKey.publicKey
        let messages = (0..<16).map { Array("message \($0)".utf8) }
        let signatures = try messages.map { try signer.signature(for: $0, format: .der) }
        let wrong = Results()  // one entry per wrong answer
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<100 {
                let i = (thread + round) % messages.count
                // Its own signature verifies; its neighbour's does not.
                if !key.isValidSignature(signatures[i], format: .der, for: messages[i]) { wrong.append(nil) }
                if key.isValidSignature(signatures[(i + 1) % messages.count], format: .der, for: messages[i]) { wrong.append(nil) }
            }
        }
        #expect(wrong.values.isEmpty)
    }

    @Test func oneSignerSignsFromManyThreadsAtOnceWithFreshNonces() throws {
        let signer = try ECSigningKey(try ECPrivateKey.generate())
        let verifier = try ECPublicKey(x962: signer.privateKey.publicKey.x962)
        let message = Array("the same message".utf8)
        let made = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 { made.append(try? signer.signature(for: message, format: .raw)) }
        }
        let signatures = made.values
        #expect(signatures.count == 400)
        #expect(signatures.allSatisfy { $0.map { verifier.isValidSignature($0, format: .raw, for: message) } == true })
        // ECDSA with a fresh nonce each time: no two signatures of the same message alike (a copied nonce would repeat r).
        #expect(Set(signatures.compactMap { $0?.prefix(32) }.map(Array.init)).count == 400)
    }
}
