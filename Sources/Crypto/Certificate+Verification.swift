import COpenSSL

extension Certificate {
    /// Verifies leaf → intermediates → root at `time` (unix seconds), root as the only trust anchor.
    ///
    /// OpenSSL builds the path from `leaf` through `intermediates` (any order; unused ones are ignored) to `root`,
    /// checking signatures, validity at `time`, CA basic constraints and path lengths (RFC 5280 §6). Partial chains
    /// are off: `root` must be the self-signed anchor, an intermediate alone is not enough. No system trust store,
    /// no revocation checks, and no purpose check (App Attest leaves carry no extended key usage).
    ///
    /// - Throws: ``CertificateError``: `.expired` / `.notYetValid` at `time`, `.untrusted` when the chain does not
    ///   lead to `root`, `.badSignature` when a signature fails, `.invalid` for any other failure, with OpenSSL's
    ///   message and the depth (0 = leaf).
    public static func verifyChain(leaf: Certificate, intermediates: [Certificate], root: Certificate, at time: Int64) throws {
        defer { ERR_clear_error() }
        var owned: [OpaquePointer] = []
        defer { owned.forEach { X509_free($0) } }
        let leafX509 = try parse(leaf.der)
        owned.append(leafX509)
        let rootX509 = try parse(root.der)
        owned.append(rootX509)

        guard let store = X509_STORE_new() else { throw setupError() }
        defer { X509_STORE_free(store) }
        // X509_STORE_add_cert takes its own reference.
        guard X509_STORE_add_cert(store, rootX509) == 1 else { throw setupError() }

        guard let untrusted = OPENSSL_sk_new_null() else { throw setupError() }
        // The stack does not own its elements; `owned` frees them.
        defer { OPENSSL_sk_free(untrusted) }
        for intermediate in intermediates {
            let parsed = try parse(intermediate.der)
            owned.append(parsed)
            guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(parsed)) > 0 else { throw setupError() }
        }

        guard let context = X509_STORE_CTX_new() else { throw setupError() }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leafX509, untrusted) == 1,
              let parameters = X509_STORE_CTX_get0_param(context) else { throw setupError() }
        X509_VERIFY_PARAM_set_time(parameters, time_t(time))
        // Partial chains stay off (the default): say so, in case a default store configuration ever changes it.
        X509_VERIFY_PARAM_clear_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))

        if X509_verify_cert(context) == 1 { return }
        let code = X509_STORE_CTX_get_error(context)
        let depth = X509_STORE_CTX_get_error_depth(context)
        let text = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
        throw CertificateError(reason(for: code), "\(text) (code \(code), depth \(depth))")
    }

    private static func reason(for code: Int32) -> CertificateError.Reason {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CRL_HAS_EXPIRED:
            .expired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            .notYetValid
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
             X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            .badSignature
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED:
            .untrusted
        default:
            .invalid
        }
    }

    private static func setupError() -> CertificateError {
        CertificateError(.invalid, "cannot set up verification: \(OpenSSL.drainErrors())")
    }
}
