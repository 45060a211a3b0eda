import Crypto

/// Checks Gatehouse receipts offline, as an app's backend does on each call: the ES256 signature against the JWKS,
/// the expiry, the environment, and for a bound receipt the request proof. Pure: the keys, the time and the request
/// are passed in; nothing is fetched or remembered. Never throws and never traps: every failure is a reason.
///
/// It cannot spend a receipt: within its ten minutes a receipt (and a bound receipt's proof, for one method and path)
/// passes every offline check again. For an operation that must happen once (a payment, a password change), call
/// `POST /api/v4/receipts/verify` with `"consume": true` instead.
public struct ReceiptVerifier: Sendable {
    /// The signing keys to trust (`GET /api/v4/receipts/keys`).
    public let keys: JWKS
    /// The environment receipts must be for (`env_…`).
    public let environment: String
    /// What receipts must be beyond signed, unexpired and of `environment`: bound, attested.
    public let policy: ReceiptPolicy
    /// Sizes and windows.
    public let limits: ReceiptLimits

    /// A verifier trusting `keys` for receipts of `environment` that meet `policy`.
    public init(keys: JWKS, environment: String, policy: ReceiptPolicy = ReceiptPolicy(), limits: ReceiptLimits = ReceiptLimits()) {
        self.keys = keys
        self.environment = environment
        self.policy = policy
        self.limits = limits
    }

    /// Checks `token` for a call `method pathAndQuery` that came with the proof header `proof` (nil when absent),
    /// at `nowMilliseconds` (unix milliseconds).
    ///
    /// The signature is checked first; a token whose signature does not verify reports only that (with no claims).
    /// Then every failing check is listed: `expired`, `wrongEnvironment`, and `session:proof` for a bound receipt
    /// whose proof is missing, unreadable, older than ``ReceiptLimits/proofMaxAgeMilliseconds``, ahead by more than
    /// ``ReceiptLimits/proofMaxAheadMilliseconds``, or not a signature by `cnf.jwk` over this method and path.
    /// An unbound receipt ignores the proof. Last, what ``policy`` demands: `unbound`, `unattested`.
    public func verify(_ token: String, method: String, pathAndQuery: String, proof: String?, nowMilliseconds: Int64) -> ReceiptVerification {
        switch verifySignature(token) {
        case .refused(let reason): ReceiptVerification(reasons: [reason], claims: nil)
        case .verified(let signed): verify(signed, method: method, pathAndQuery: pathAndQuery, proof: proof, nowMilliseconds: nowMilliseconds)
        }
    }

    /// Checks a receipt whose signature verified before (``verifySignature(_:)``, remembered by a caller that sees
    /// the same receipt many times) as ``verify(_:method:pathAndQuery:proof:nowMilliseconds:)`` does after the
    /// signature: expiry, environment, proof, policy. The caller must make sure `signed.keyID` is still among
    /// ``keys`` (a revoked key's receipts are not valid).
    public func verify(_ signed: SignedReceipt, method: String, pathAndQuery: String, proof: String?, nowMilliseconds: Int64) -> ReceiptVerification {
        let claims = signed.claims
        var reasons: [ReceiptReason] = []
        let now = nowMilliseconds / 1000
        let (latestIssue, overflow) = now.addingReportingOverflow(limits.issuedAtLeewaySeconds)
        if now >= claims.expiresAt || (!overflow && claims.issuedAt > latestIssue) { reasons.append(.expired) }
        if claims.environment != environment { reasons.append(.wrongEnvironment) }
        if let key = claims.confirmationKey,
           !proofHolds(proof, key: key, method: method, pathAndQuery: pathAndQuery, nowMilliseconds: nowMilliseconds) {
            reasons.append(.sessionProof)
        }
        reasons += policy.violations(of: claims)
        return ReceiptVerification(reasons: reasons, claims: claims)
    }

    /// What checking a token's signature gave: its claims under the key that signed them, or the one reason it has none.
    public enum SignatureCheck: Sendable {
        case verified(SignedReceipt)
        case refused(ReceiptReason)
    }

    /// The claims of `token` when its header is ours and its signature verifies under the JWKS key it names; the
    /// one costly step of a verification (an ECDSA verify).
    public func verifySignature(_ token: String) -> SignatureCheck {
        guard token.utf8.count <= limits.maxTokenBytes else { return .refused(.malformed) }
        // Split as bytes: splitting the String itself walks grapheme clusters, a tenth of a verification's time.
        let bytes = Array(token.utf8)
        let segments = bytes.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerText = Base64.decodeURLSafeUnpadded(segments[0]),
              let payload = Base64.decodeURLSafeUnpadded(segments[1]),
              let signature = Base64.decodeURLSafeUnpadded(segments[2])
        else { return .refused(.malformed) }
        let kid: String
        do {
            kid = try ReceiptHeader.kid(of: headerText)
        } catch .algorithm {
            return .refused(.signatureInvalid)
        } catch {
            return .refused(.malformed)
        }
        guard keys.key(kid: kid) != nil, signature.count == 64 else {
            return .refused(.signatureInvalid)
        }
        let signingInput = Array(bytes[..<segments[1].endIndex])
        guard keys.verifies(kid: kid, signature: signature, message: signingInput) else { return .refused(.signatureInvalid) }
        do {
            return .verified(SignedReceipt(claims: try ReceiptClaims(payload: payload), keyID: kid))
        } catch {
            return .refused(.malformed)
        }
    }

    /// Whether `header` is a fresh proof by `key` for this call.
    func proofHolds(_ header: String?, key: PublicJWK, method: String, pathAndQuery: String, nowMilliseconds: Int64) -> Bool {
        guard let header, let proof = try? RequestProof(header: header, limits: limits) else { return false }
        let (age, overflow) = nowMilliseconds.subtractingReportingOverflow(proof.timestamp)
        guard !overflow, age <= limits.proofMaxAgeMilliseconds, age >= -limits.proofMaxAheadMilliseconds else { return false }
        return proof.verifies(key: key.publicKey, method: method, pathAndQuery: pathAndQuery)
    }
}

/// A receipt whose signature verified: its claims and the `kid` of the key that signed them.
public struct SignedReceipt: Sendable, Equatable {
    public let claims: ReceiptClaims
    public let keyID: String

    public init(claims: ReceiptClaims, keyID: String) {
        self.claims = claims
        self.keyID = keyID
    }
}
