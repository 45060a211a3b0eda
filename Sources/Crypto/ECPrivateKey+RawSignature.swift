import COpenSSL

/// ECDSA signatures as JWS carries them (ES256, RFC 7518 §3.4): `r ‖ s`, 32 big-endian bytes each.
extension ECPrivateKey {
    /// An ECDSA signature with SHA-256 over `message`, as the 64 bytes `r ‖ s`.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL fails to sign.
    public func rawSignature(for message: [UInt8]) throws -> [UInt8] {
        let der = try signature(for: message)
        guard let raw = ECPublicKey.rawSignature(der: der) else {
            throw CryptoError(operation: "ECDSA P-256 sign", reason: "the signature does not convert to r ‖ s")
        }
        return raw
    }
}

extension ECPublicKey {
    /// Converts a DER `ECDSA-Sig-Value` into `r ‖ s` (32 bytes each); nil when it does not parse whole or a
    /// component is longer than 32 bytes.
    public static func rawSignature(der: [UInt8]) -> [UInt8]? {
        defer { ERR_clear_error() }
        guard !der.isEmpty, der.count <= 128 else { return nil }
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let parsed = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                ECDSA_SIG_free(parsed)
                return nil
            }
            return parsed
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else { return nil }
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        return ok ? raw : nil
    }
}
