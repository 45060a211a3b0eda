import COpenSSL

/// A P-256 public key parsed once for many ECDSA-with-SHA-256 verifications, from many threads.
///
/// ``ECPublicKey`` hands its bytes to OpenSSL on every verification; with OpenSSL 3 that parse (the decoder
/// machinery) costs more than the verification itself. A verifier made once per key (a Play Integrity verification
/// key, say) keeps OpenSSL's parsed key and the SHA-256 implementation it fetched, and each verification only makes
/// its own context. Verifying the same key concurrently is safe: OpenSSL 3 reads a shared `EVP_PKEY` without changing
/// it, and every call makes and frees its own `EVP_MD_CTX`.
public final class ECVerifyingKey: Sendable {
    /// The key it verifies with.
    public let publicKey: ECPublicKey
    private let handles: Handles

    /// OpenSSL's parsed key and SHA-256, freed once, when the verifier goes.
    private struct Handles: ~Copyable, @unchecked Sendable {
        // @unchecked Sendable: both are only read after init (OpenSSL 3 allows concurrent use of a key and a fetched
        // algorithm that nobody modifies), and freed in deinit, when no verification can run.
        let key: OpaquePointer
        let sha256: OpaquePointer

        deinit {
            EVP_PKEY_free(key)
            EVP_MD_free(sha256)
        }
    }

    /// A verifier for `publicKey`.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL cannot parse the key or has no SHA-256.
    public init(_ publicKey: ECPublicKey) throws {
        let operation = "prepare P-256 public key"
        let der = publicKey.derSubjectPublicKeyInfo
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key = parsed else { throw CryptoError(openSSLOperation: operation) }
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            EVP_PKEY_free(key)
            throw CryptoError(openSSLOperation: operation)
        }
        self.publicKey = publicKey
        handles = Handles(key: key, sha256: sha256)
    }

    /// Whether `signature` is a valid ECDSA signature with SHA-256 over `message` by this key, exactly as
    /// ``ECPublicKey/isValidSignature(_:format:for:)`` answers. False for any malformed signature.
    public func isValidSignature(_ signature: [UInt8], format: ECPublicKey.SignatureFormat, for message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        let der: [UInt8]
        switch format {
        case .der:
            der = signature
        case .raw:
            guard signature.count == 64, let encoded = ECPublicKey.derSignature(raw: signature) else { return false }
            der = encoded
        }
        guard !der.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, handles.sha256, nil, handles.key) == 1 else { return false }
        return OpenSSL.withBytes(message) { messagePointer, messageCount in
            EVP_DigestVerify(context, der, der.count, messagePointer, messageCount) == 1
        }
    }
}
