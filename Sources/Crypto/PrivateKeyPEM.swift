import COpenSSL

/// Checks private keys that users paste (a Google service-account JSON's `private_key` is an RSA PKCS#8 PEM)
/// before they are sealed and stored.
public enum PrivateKeyPEM {
    /// The key's algorithm family.
    public enum Algorithm: String, Sendable {
        /// RSA (PKCS#1 or PKCS#8).
        case rsa
        /// Elliptic curve (SEC 1 or PKCS#8).
        case ec
        /// Anything else OpenSSL parses (Ed25519, RSA-PSS, DSA…).
        case other
    }

    /// Parses `pem` with OpenSSL (`PEM_read_bio_PrivateKey`) and returns its algorithm; the parsed key is freed
    /// at once and nothing of it is kept or logged.
    ///
    /// Passphrase-protected keys are refused rather than prompting on the terminal.
    /// - Throws: ``CryptoError`` when the text holds no private key OpenSSL can read (the reason is OpenSSL's,
    ///   which never quotes the key).
    public static func validate(_ pem: String) throws -> Algorithm {
        let operation = "parse private key"
        let bio = try OpenSSL.memoryBIO(Array(pem.utf8), operation: operation)
        defer { BIO_free(bio) }
        // A callback that supplies no passphrase: encrypted keys fail instead of reading from the terminal.
        let noPassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in 0 }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, noPassphrase, nil) else {
            throw CryptoError(openSSLOperation: operation)
        }
        defer { EVP_PKEY_free(key) }
        if EVP_PKEY_is_a(key, "RSA") == 1 { return .rsa }
        if EVP_PKEY_is_a(key, "EC") == 1 { return .ec }
        return .other
    }
}
