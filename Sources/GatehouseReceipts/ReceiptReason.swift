/// Why a receipt is not valid (docs/device-api.md "Receipts"), as `POST /api/v4/receipts/verify` and
/// ``ReceiptVerifier`` both name them.
public enum ReceiptReason: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Not a receipt: not three base64url segments, a header or claims that do not read, or over the size limit.
    case malformed
    /// The signature does not verify, the `kid` is not in the JWKS, or `alg` is not ES256.
    case signatureInvalid
    /// Past `exp` (or issued further ahead than the leeway allows).
    case expired
    /// Issued for another environment than the one checking it.
    case wrongEnvironment
    /// Bound to a phone key, and the proof is missing, unreadable, older than 2 minutes, ahead of the clock, or does
    /// not verify for this method and path.
    case sessionProof = "session:proof"
    /// The backend's policy demands a bound receipt (``ReceiptPolicy/requiresBound``) and this one is not bound.
    case unbound
    /// The backend's policy demands a verified attestation (``ReceiptPolicy/requiresVerifiedAttestation``) and this
    /// receipt was issued on none, or on one that was not verified.
    case unattested
    /// Spent by an earlier consuming check (`"consume": true` on the server's verify endpoint, docs/device-api.md
    /// "Receipts spent once"). Only the server gives this reason: an offline check cannot know what was spent.
    case consumed
}
