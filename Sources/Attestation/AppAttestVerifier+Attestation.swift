import Crypto

extension AppAttestVerifier {
    /// Judges a key registration: every step of Apple's "Validating apps that connect to your server" as
    /// docs/device-api.md "Key registration" lists them, at `now` (Unix seconds). Does not check the challenge's
    /// freshness nor whether the key is registered already: that is state, the caller's.
    ///
    /// Forged reasons (`attestationInvalid`, `certificateChainInvalid`, `nonceMismatch`, `keyIdMismatch`) are all
    /// collected; rejected ones (`appIdNotRegistered`, `developmentKey`) only when the proof is genuine, since they
    /// condemn the app's setup and a forgery says nothing about it. With no app id registered the verdict is
    /// unavailable / `notConfigured` whatever the object: nothing is judged before the environment is set up.
    /// The result carries what was learnt (key id, environment, key, matching app id, the app id Apple certified)
    /// even when not verified. A leaf whose certified app id (extension 1.2.840.113635.100.8.5) is not the one
    /// rpIdHash names is forged `attestationInvalid`, as are authenticator-data extensions that do not read. A genuine
    /// attestation is then held to the registration's policy (launch validation, bundle version), and its receipt
    /// checked when the verifier has receipt roots (``AttestationResult/receiptCheck``; never the verdict).
    public func verifyAttestation(_ request: AttestationRequest, registration: AppAttestRegistration, now: Int64) -> AttestationResult {
        var result = judgeAttestation(request, registration: registration, now: now)
        if registration.appIds.isEmpty { result.verdict = Verdict(reasons: [.notConfigured]) }
        return result
    }

    private func judgeAttestation(_ request: AttestationRequest, registration: AppAttestRegistration, now: Int64) -> AttestationResult {
        guard request.attestation.count <= limits.maxObjectBytes,
              let object = try? AttestationObject(request.attestation),
              let credential = object.authData.credential else {
            return AttestationResult(verdict: Verdict(reasons: [.attestationInvalid]))
        }
        var forged: [Reason] = []
        var result = AttestationResult(verdict: .verified, receipt: object.receipt)
        result.environment = AttestationEnvironment(aaguid: credential.aaguid)
        if object.fmt != "apple-appattest" || result.environment == nil || object.authData.signCount != 0 {
            forged.append(.attestationInvalid)
        }
        do {
            result.extensions = try AppAttestExtensions.read(object.authData.extensionBytes)
        } catch {
            forged.append(.attestationInvalid)
        }

        // The chain, bounded before any certificate is parsed.
        var leaf: Certificate?
        var chainVerified = false
        if object.x5c.isEmpty {
            forged.append(.attestationInvalid)
        } else if object.x5c.count > limits.maxCertificates {
            forged.append(.certificateChainInvalid)
        } else if let certificates = try? object.x5c.map({ try Certificate(der: $0) }), let first = certificates.first {
            leaf = first
            chainVerified = chainVerifies(leaf: first, intermediates: Array(certificates.dropFirst()), at: now)
            if !chainVerified { forged.append(.certificateChainInvalid) }
        } else {
            forged.append(.certificateChainInvalid)
        }

        // The app id Apple certified, believed only from a chain that verifies; it must be the one rpIdHash names.
        if chainVerified, let leaf, let value = leaf.extensionValue(oid: AppIDExtension.oid) {
            if let attested = AppIDExtension.appID(value), SHA256.hash(attested) == object.authData.rpIdHash {
                result.attestedAppId = attested
            } else {
                forged.append(.attestationInvalid)
            }
        }

        if let leaf {
            // The nonce binds authData and the client data to the certificate.
            let nonce = SHA256.hash(object.authDataBytes + request.clientDataHash)
            if leaf.extensionValue(oid: NonceExtension.oid).flatMap(NonceExtension.nonce) != nonce {
                forged.append(.nonceMismatch)
            }
            // The key id is the hash of the certified key, and authData names the same credential.
            if let key = try? ECPublicKey(derSubjectPublicKeyInfo: leaf.publicKeyDER) {
                let keyId = SHA256.hash(key.x962)
                result.publicKey = key
                result.keyId = keyId
                if keyId != request.keyId || keyId != credential.credentialId { forged.append(.keyIdMismatch) }
            } else {
                forged.append(.attestationInvalid)
            }
        }

        result.appId = registration.appIds.first { SHA256.hash($0) == object.authData.rpIdHash }
        var reasons = forged
        if forged.isEmpty {
            if result.appId == nil { reasons.append(.appIdNotRegistered) }
            if registration.isProduction && result.environment == .development { reasons.append(.developmentKey) }
            reasons += registration.policy.reasons(for: result.extensions)
            if let receipts, let receipt = object.receipt, let key = result.publicKey,
               let appId = result.appId ?? result.attestedAppId {
                result.receiptCheck = receipts.check(receipt, expecting: .attestation(appId: appId, attestedKey: key.x962), at: now)
            }
        }
        result.verdict = Verdict(reasons: reasons)
        return result
    }

    /// Whether `leaf` chains through `intermediates` to one of the roots at `now`.
    private func chainVerifies(leaf: Certificate, intermediates: [Certificate], at now: Int64) -> Bool {
        roots.certificates.contains { root in
            (try? Certificate.verifyChain(leaf: leaf, intermediates: intermediates, root: root, at: now)) != nil
        }
    }
}
