import Crypto
import Testing
import TestSupport

@Suite struct PrivateKeyPEMTests {
    @Test(arguments: [
        // PKCS#8, as in a Google service-account JSON key.
        (["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"], PrivateKeyPEM.Algorithm.rsa),
        // PKCS#1 ("BEGIN RSA PRIVATE KEY").
        (["genrsa", "-traditional", "-out", "key.pem", "1024"], .rsa),
        (["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"], .ec),
        // SEC 1 ("BEGIN EC PRIVATE KEY").
        (["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "key.pem"], .ec),
        (["genpkey", "-algorithm", "ED25519", "-out", "key.pem"], .other),
    ])
    func recognizesGeneratedKeys(generate: [String], algorithm: PrivateKeyPEM.Algorithm) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(generate, in: directory.path)
        let pem = try readText(directory.file("key.pem"))
        #expect(try PrivateKeyPEM.validate(pem) == algorithm)
        // Surrounding text, as pasted from a JSON value or an e-mail, is tolerated by PEM.
        #expect(try PrivateKeyPEM.validate("pasted:\n" + pem + "\n") == algorithm)
    }

    @Test func refusesAnEncryptedKeyWithoutPrompting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:secret",
                     "-out", "key.pem"], in: directory.path)
        let pem = try readText(directory.file("key.pem"))
        #expect(pem.contains("ENCRYPTED"))
        #expect(throws: CryptoError.self) { try PrivateKeyPEM.validate(pem) }
    }

    @Test func refusesTruncatedKeys() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "key.pem"], in: directory.path)
        var lines = try readText(directory.file("key.pem")).split(separator: "\n")
        lines.remove(at: 3)
        #expect(throws: CryptoError.self) { try PrivateKeyPEM.validate(lines.joined(separator: "\n")) }
    }

    @Test(arguments: [
        "",
        "garbage",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\nnot base64 at all!\n-----END PRIVATE KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEYP7UuiVanTHJYet0xjVtaMBJuJI7Yfps5mliLmDyn7Z5A/4QCLi8maQa6elWKLxk8vGyDC1+n1F3o8KU1EYimQ==\n-----END PUBLIC KEY-----\n",
    ])
    func refusesGarbage(pem: String) {
        #expect(throws: CryptoError.self) { try PrivateKeyPEM.validate(pem) }
    }
}
