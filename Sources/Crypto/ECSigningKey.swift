import COpenSSL

/// A P-256 private key parsed once for many ECDSA-with-SHA-256 signatures, from many threads.
///
/// ``ECPrivateKey`` is kept as its PKCS#8 bytes and parsed on every signature; with OpenSSL 3 that parse (the decoder
/// machinery, with its provider-store locks) costs more than the signature. A signer made once per key (the receipt
/// signing key) keeps OpenSSL's parsed key and a signing context made ready once
/// (`EVP_DigestSignInit`) and never used itself; each signature signs with a copy of it (`EVP_MD_CTX_copy_ex`
/// duplicates OpenSSL's ECDSA context, with no nonce in it), so OpenSSL's providers are not asked for ECDSA again.
/// Signing with one key concurrently is safe: OpenSSL 3 reads a shared `EVP_PKEY` and a context it copies without
/// changing them, and every call signs with a context of its own.
public final class ECSigningKey: Sendable {
    /// The key it signs with.
    public let privateKey: ECPrivateKey
    private let handles: Handles

    /// OpenSSL's parsed key and prepared signing context, freed once, when the signer goes.
    private struct Handles: ~Copyable, @unchecked Sendable {
        // @unchecked Sendable: both are only read after init (OpenSSL 3 allows concurrent use of a key and of a
        // context being copied that nobody modifies), and freed in deinit, when no signature can run.
        let key: OpaquePointer
        let prepared: OpaquePointer

        deinit {
            EVP_MD_CTX_free(prepared)
            EVP_PKEY_free(key)
        }
    }

    /// A signer for `privateKey`.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL cannot parse the key or prepare a signing context.
    public init(_ privateKey: ECPrivateKey) throws {
        let operation = "prepare P-256 private key"
        let key = try ECPrivateKey.parse(privateKey.pkcs8DER, operation: operation)
        guard let prepared = EVP_MD_CTX_new() else {
            EVP_PKEY_free(key)
            throw CryptoError(openSSLOperation: operation)
        }
        guard EVP_DigestSignInit(prepared, nil, FetchedDigest.sha256, nil, key) == 1 else {
            EVP_MD_CTX_free(prepared)
            EVP_PKEY_free(key)
            throw CryptoError(openSSLOperation: operation)
        }
        self.privateKey = privateKey
        handles = Handles(key: key, prepared: prepared)
    }

    /// An ECDSA signature with SHA-256 over `message`, in `format` (DER, or raw `r || s` as JWS `ES256` carries it).
    ///
    /// - Throws: ``CryptoError`` when OpenSSL fails to sign (the message never appears in it).
    public func signature(for message: [UInt8], format: ECPublicKey.SignatureFormat) throws -> [UInt8] {
        let operation = "ECDSA P-256 sign"
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_MD_CTX_copy_ex(context, handles.prepared) == 1 else { throw CryptoError(openSSLOperation: operation) }
        let der: [UInt8] = try OpenSSL.withBytes(message) { pointer, count in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, pointer, count) == 1 else { throw CryptoError(openSSLOperation: operation) }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, pointer, count) == 1 else { throw CryptoError(openSSLOperation: operation) }
            return Array(signature.prefix(length))
        }
        switch format {
        case .der: return der
        case .raw: return try ECPrivateKey.rawSignature(der: der)
        }
    }
}

extension ECSigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never shows the key.
    public var description: String { "ECSigningKey(P-256, <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
