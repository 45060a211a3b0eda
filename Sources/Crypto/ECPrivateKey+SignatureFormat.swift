import COpenSSL

extension ECPrivateKey {
    /// An ECDSA P-256 signature with SHA-256 over `message`, in `format`: DER, or raw `r || s` (32 big-endian
    /// bytes each, RFC 7518 §3.4) as JWS `ES256` carries it.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL fails to sign (the message never appears in it).
    public func signature(for message: [UInt8], format: ECPublicKey.SignatureFormat) throws -> [UInt8] {
        let der = try signature(for: message)
        switch format {
        case .der: return der
        case .raw: return try Self.rawSignature(der: der)
        }
    }

    /// Converts a DER ECDSA-Sig-Value into `r || s`.
    static func rawSignature(der: [UInt8]) throws -> [UInt8] {
        let operation = "ECDSA P-256 sign"
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw CryptoError(openSSLOperation: operation) }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
            throw CryptoError(openSSLOperation: operation)
        }
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard ok else { throw CryptoError(openSSLOperation: operation) }
        return raw
    }
}

extension ECPrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never shows the key (a struct's default description would print its bytes).
    public var description: String { "ECPrivateKey(P-256, <redacted>)" }
    /// Never shows the key.
    public var debugDescription: String { description }
    /// Hides the key from `dump` and other reflection.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
