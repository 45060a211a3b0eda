import Crypto
import Testing
import TestSupport

@Suite struct ECPrivateKeyRawSignatureTests {
    @Test func signsRawAndDERSignaturesItsPublicKeyVerifies() throws {
        let key = try ECPrivateKey.generate()
        let message = Array("header.payload".utf8)
        let raw = try key.signature(for: message, format: .raw)
        let der = try key.signature(for: message, format: .der)
        #expect(raw.count == 64)
        #expect(der.first == 0x30)
        #expect(key.publicKey.isValidSignature(raw, format: .raw, for: message))
        #expect(key.publicKey.isValidSignature(der, format: .der, for: message))
        #expect(!key.publicKey.isValidSignature(raw, format: .raw, for: Array("header.payloaD".utf8)))
        #expect(!(try ECPrivateKey.generate()).publicKey.isValidSignature(raw, format: .raw, for: message))
    }

    @Test func importsWhatItExportsAndWhatOpenSSLWrites() throws {
        let key = try ECPrivateKey.generate()
        #expect(try ECPrivateKey(pem: key.pkcs8PEM).publicKey.x962 == key.publicKey.x962)
        #expect(try ECPrivateKey(pkcs8DER: key.pkcs8DER).pkcs8DER == key.pkcs8DER)

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "sec1.pem"], in: directory.path)
        try openssl(["pkey", "-in", "sec1.pem", "-pubout", "-outform", "DER", "-out", "public.der"], in: directory.path)
        try openssl(["pkcs8", "-topk8", "-nocrypt", "-in", "sec1.pem", "-outform", "DER", "-out", "key.der"], in: directory.path)
        let fromSEC1 = try ECPrivateKey(pem: try readText(directory.file("sec1.pem")))
        let fromDER = try ECPrivateKey(pkcs8DER: try readBytes(directory.file("key.der")))
        #expect(fromSEC1.publicKey.derSubjectPublicKeyInfo == (try readBytes(directory.file("public.der"))))
        #expect(fromDER.pkcs8DER == fromSEC1.pkcs8DER)

        // OpenSSL's tool verifies what we sign.
        let message = try SecureRandom.bytes(100)
        try writeBytes(message, to: directory.file("message.bin"))
        try writeBytes(try fromSEC1.signature(for: message, format: .der), to: directory.file("signature.der"))
        let result = try openssl(["dgst", "-sha256", "-verify", "public.der", "-keyform", "DER", "-signature", "signature.der", "message.bin"],
                                 in: directory.path)
        #expect(String(decoding: result, as: UTF8.self).contains("Verified OK"))
    }

    @Test func refusesOtherKeysAndGarbage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"], in: directory.path)
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: try readText(directory.file("p384.pem"))) }
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: try RSAPrivateKey.generate().pkcs8PEM) }
        #expect(throws: CryptoError.self) { try ECPrivateKey(pkcs8DER: []) }
        #expect(throws: CryptoError.self) { try ECPrivateKey(pkcs8DER: try ECPrivateKey.generate().pkcs8DER + [0]) }
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: "not a key") }
    }

    @Test func neverDescribesTheKey() throws {
        let key = try ECPrivateKey.generate()
        let secret = Base64.encode(key.pkcs8DER)
        #expect(!"\(key)".contains(secret))
        #expect(!String(reflecting: key).contains(secret))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains(Hex.encode(key.pkcs8DER)))
        #expect(!dumped.contains("pkcs8DER"))
    }
}
