import Crypto
import Testing
import TestSupport

@Suite struct RSAKeyTests {
    @Test func signsRS256ThatItsPublicKeyAndOpenSSLVerify() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // PKCS#8 PEM, as in a Google service-account JSON key's private_key.
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"], in: directory.path)
        try openssl(["pkey", "-in", "key.pem", "-pubout", "-out", "public.pem"], in: directory.path)
        let key = try RSAPrivateKey(pem: try readText(directory.file("key.pem")))
        #expect(key.publicKey.bits == 2048)
        let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0".utf8)
        let signature = try key.rs256Signature(for: message)
        #expect(signature.count == 256)
        // RSASSA-PKCS1-v1_5 is deterministic.
        #expect(try key.rs256Signature(for: message) == signature)
        #expect(key.publicKey.isValidRS256Signature(signature, for: message))
        #expect(!key.publicKey.isValidRS256Signature(signature, for: message + [0x2E]))
        var altered = signature
        altered[100] ^= 1
        #expect(!key.publicKey.isValidRS256Signature(altered, for: message))
        #expect(!key.publicKey.isValidRS256Signature(Array(signature.dropLast()), for: message))
        #expect(!key.publicKey.isValidRS256Signature([], for: message))

        let fromPEM = try RSAPublicKey(pem: try readText(directory.file("public.pem")))
        #expect(fromPEM == key.publicKey)
        try writeBytes(message, to: directory.file("message.bin"))
        try writeBytes(signature, to: directory.file("signature.bin"))
        let result = try openssl(["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature.bin", "message.bin"], in: directory.path)
        #expect(String(decoding: result, as: UTF8.self).contains("Verified OK"))
    }

    @Test func generatedKeysRoundTripThroughPKCS8() throws {
        let key = try RSAPrivateKey.generate()
        let again = try RSAPrivateKey(pem: key.pkcs8PEM)
        #expect(again.pkcs8DER == key.pkcs8DER)
        #expect(try RSAPrivateKey(der: key.pkcs8DER).publicKey == key.publicKey)
        #expect(try RSAPublicKey(derSubjectPublicKeyInfo: key.publicKey.derSubjectPublicKeyInfo) == key.publicKey)
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
    }

    @Test func refusesSmallKeysOtherAlgorithmsAndGarbage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(["genrsa", "-traditional", "-out", "small.pem", "1024"], in: directory.path)
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: try readText(directory.file("small.pem"))) }
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: try ECPrivateKey.generate().pkcs8PEM) }
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: CryptoError.self) { try RSAPrivateKey.generate(bits: 1024) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(derSubjectPublicKeyInfo: try ECPrivateKey.generate().publicKey.derSubjectPublicKeyInfo) }
    }

    @Test func neverDescribesTheKey() throws {
        let key = try RSAPrivateKey.generate()
        #expect("\(key)" == "RSAPrivateKey(2048 bits, <redacted>)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("pkcs8DER"))
    }
}
