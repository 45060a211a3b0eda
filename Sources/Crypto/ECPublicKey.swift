import COpenSSL

/// A NIST P-256 (prime256v1 / secp256r1) public key, for ECDSA-with-SHA-256 signatures (App Attest keys,
/// Play Integrity verification keys).
///
/// The key is parsed once, when the value is made: it holds its point (normalized to an uncompressed point) and the
/// parsed OpenSSL key, which every verification reuses (concurrently, from any thread).
public struct ECPublicKey: Sendable {
    /// DER prefix of a P-256 SubjectPublicKeyInfo whose BIT STRING holds a 65-byte uncompressed point
    /// (RFC 5480 §2: id-ecPublicKey with the prime256v1 named curve).
    static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
        0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The uncompressed point `04 || X || Y` (65 bytes, ANSI X9.62 / SEC 1 §2.3.3).
    public let x962: [UInt8]
    /// The parsed key, shared by copies of this value.
    let handle: PublicKeyHandle

    /// The key as a DER SubjectPublicKeyInfo (91 bytes, uncompressed point).
    public var derSubjectPublicKeyInfo: [UInt8] { Self.spkiPrefix + x962 }

    /// Parses a DER SubjectPublicKeyInfo (compressed or uncompressed point).
    ///
    /// - Throws: ``CryptoError`` when it does not parse, has trailing bytes, is not an EC key, is not on P-256,
    ///   or the point is not on the curve.
    public init(derSubjectPublicKeyInfo der: [UInt8]) throws {
        let operation = "parse P-256 public key"
        guard !der.isEmpty, der.count <= Int(Int32.max) else {
            throw CryptoError(operation: operation, reason: "empty or oversized input")
        }
        let key: OpaquePointer = try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else {
                throw CryptoError(openSSLOperation: operation)
            }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(key)
                throw CryptoError(operation: operation, reason: "trailing bytes after the key")
            }
            return key
        }
        let handle = PublicKeyHandle(taking: key)
        x962 = try Self.uncompressedPoint(of: key, operation: operation)
        self.handle = handle
    }

    /// Parses a PEM `PUBLIC KEY` block (SubjectPublicKeyInfo).
    ///
    /// - Throws: ``CryptoError`` as ``init(derSubjectPublicKeyInfo:)`` does, or when there is no PEM block.
    public init(pem: String) throws {
        let operation = "parse P-256 public key"
        let bio = try OpenSSL.memoryBIO(Array(pem.utf8), operation: operation)
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else {
            throw CryptoError(openSSLOperation: operation)
        }
        let handle = PublicKeyHandle(taking: key)
        x962 = try Self.uncompressedPoint(of: key, operation: operation)
        self.handle = handle
    }

    /// Takes an uncompressed point `04 || X || Y` (65 bytes), as App Attest and WebAuthn carry it.
    ///
    /// - Throws: ``CryptoError`` when the length or prefix is wrong or the point is not on P-256.
    public init(x962: [UInt8]) throws {
        guard x962.count == 65, x962.first == 0x04 else {
            throw CryptoError(operation: "parse P-256 public key", reason: "expected a 65-byte uncompressed point starting with 04")
        }
        // Built from parameters rather than decoded from the equivalent SPKI (OpenSSL 3's decoders cost several
        // times a verification); importing the point makes OpenSSL check that it is on the curve.
        handle = try Self.importPoint(x962, operation: "parse P-256 public key")
        self.x962 = x962
    }

    /// Signature encodings.
    public enum SignatureFormat: Sendable {
        /// ASN.1 DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (X.509, App Attest assertions).
        case der
        /// `r || s`, 32 big-endian bytes each (JWS ES256, RFC 7518 §3.4).
        case raw
    }

    /// Whether `signature` is a valid ECDSA signature with SHA-256 over `message` by this key.
    /// Returns false for any malformed signature (OpenSSL also rejects non-canonical DER).
    public func isValidSignature(_ signature: [UInt8], format: SignatureFormat, for message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        let der: [UInt8]
        switch format {
        case .der:
            der = signature
        case .raw:
            guard signature.count == 64, let encoded = Self.derSignature(raw: signature) else { return false }
            der = encoded
        }
        guard !der.isEmpty else { return false }
        let key = handle.pointer
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return OpenSSL.withBytes(message) { messagePointer, messageCount in
            EVP_DigestVerify(context, der, der.count, messagePointer, messageCount) == 1
        }
    }

    /// A P-256 `EVP_PKEY` holding the uncompressed point `x962`, made with `EVP_PKEY_fromdata` (which rejects a point
    /// off the curve).
    private static func importPoint(_ x962: [UInt8], operation: String) throws -> PublicKeyHandle {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw CryptoError(openSSLOperation: operation) }
        var key: OpaquePointer? = nil
        let imported = x962.withUnsafeBufferPointer { point -> Int32 in
            OSSL_PKEY_PARAM_GROUP_NAME.withCString { groupKey in
                OSSL_PKEY_PARAM_PUB_KEY.withCString { publicKey in
                    "prime256v1".withCString { curve in
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: curve), 0),
                            OSSL_PARAM_construct_octet_string(publicKey, UnsafeMutableRawPointer(mutating: point.baseAddress), point.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_PKEY_fromdata(context, &key, gatehouse_evp_pkey_public_key(), &parameters)
                    }
                }
            }
        }
        guard imported == 1, let key else { throw CryptoError(openSSLOperation: operation) }
        return PublicKeyHandle(taking: key)
    }

    /// Converts `r || s` into a DER ECDSA-Sig-Value.
    static func derSignature(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        return try? OpenSSL.encodeDER(operation: "encode ECDSA signature") { i2d_ECDSA_SIG(signature, $0) }
    }

    /// Checks the key is EC on P-256 and returns its point uncompressed.
    private static func uncompressedPoint(of key: OpaquePointer, operation: String) throws -> [UInt8] {
        guard EVP_PKEY_is_a(key, "EC") == 1 else {
            throw CryptoError(operation: operation, reason: "not an elliptic-curve key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var nameLength = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &nameLength) == 1 else {
            throw CryptoError(openSSLOperation: operation)
        }
        let curve = OpenSSL.decodeCString(name)
        guard curve == "prime256v1" else {
            throw CryptoError(operation: operation, reason: "curve \(curve) is not P-256 (prime256v1)")
        }
        var x: OpaquePointer? = nil
        var y: OpaquePointer? = nil
        defer {
            BN_free(x)
            BN_free(y)
        }
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x) == 1,
              EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y) == 1 else {
            throw CryptoError(openSSLOperation: operation)
        }
        var point = [UInt8](repeating: 0, count: 65)
        point[0] = 0x04
        let ok = point.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(x, base + 1, 32) == 32 && BN_bn2binpad(y, base + 33, 32) == 32
        }
        guard ok else { throw CryptoError(openSSLOperation: operation) }
        return point
    }
}
