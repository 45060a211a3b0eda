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
        // The usual encoding (an uncompressed point) is imported as its point: OpenSSL's SPKI decoder costs about
        // 25 times as much.
        if der.count == Self.spkiPrefix.count + 65, der.starts(with: Self.spkiPrefix), der[Self.spkiPrefix.count] == 0x04 {
            let point = Array(der[Self.spkiPrefix.count...])
            handle = try Self.importPoint(point, operation: operation)
            x962 = point
            return
        }
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
        guard let context = handle.verifyContext() else { return false }
        defer { EVP_MD_CTX_free(context) }
        return OpenSSL.withBytes(message) { messagePointer, messageCount in
            EVP_DigestVerify(context, der, der.count, messagePointer, messageCount) == 1
        }
    }

    /// A P-256 `EVP_PKEY` holding the uncompressed point `x962`: a new key takes P-256's parameters from
    /// ``curveTemplate`` and then the point, which OpenSSL checks is on the curve. This costs about a third of
    /// building the key from its parameters by name (`EVP_PKEY_fromdata`, which sets the curve up afresh) and a
    /// 25th of decoding the equivalent SPKI.
    private static func importPoint(_ x962: [UInt8], operation: String) throws -> PublicKeyHandle {
        let template = try curveTemplate.get()
        guard let key = EVP_PKEY_new() else { throw CryptoError(openSSLOperation: operation) }
        let handle = PublicKeyHandle(taking: key)
        guard EVP_PKEY_copy_parameters(key, template.pointer) == 1,
              x962.withUnsafeBufferPointer({ EVP_PKEY_set1_encoded_public_key(key, $0.baseAddress, $0.count) }) == 1 else {
            throw CryptoError(openSSLOperation: operation)
        }
        return handle
    }

    /// A P-256 public key (the curve's generator as its point) whose parameters every imported point copies; made
    /// once, with `EVP_PKEY_fromdata`, and only read afterwards.
    private static let curveTemplate: Result<PublicKeyHandle, CryptoError> = Result { () throws(CryptoError) -> PublicKeyHandle in
        let operation = "set up P-256"
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw CryptoError(openSSLOperation: operation) }
        var key: OpaquePointer? = nil
        let imported = generator.withUnsafeBufferPointer { point -> Int32 in
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

    /// P-256's generator G as an uncompressed point (SEC 2 §2.4.2).
    private static let generator: [UInt8] = [
        0x04,
        0x6B, 0x17, 0xD1, 0xF2, 0xE1, 0x2C, 0x42, 0x47, 0xF8, 0xBC, 0xE6, 0xE5, 0x63, 0xA4, 0x40, 0xF2,
        0x77, 0x03, 0x7D, 0x81, 0x2D, 0xEB, 0x33, 0xA0, 0xF4, 0xA1, 0x39, 0x45, 0xD8, 0x98, 0xC2, 0x96,
        0x4F, 0xE3, 0x42, 0xE2, 0xFE, 0x1A, 0x7F, 0x9B, 0x8E, 0xE7, 0xEB, 0x4A, 0x7C, 0x0F, 0x9E, 0x16,
        0x2B, 0xCE, 0x33, 0x57, 0x6B, 0x31, 0x5E, 0xCE, 0xCB, 0xB6, 0x40, 0x68, 0x37, 0xBF, 0x51, 0xF5,
    ]

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
