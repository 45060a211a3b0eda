/// What a backend demands of a receipt beyond its signature, expiry and environment (DEVICE-API.md "Receipts", the
/// `require` member of `POST /api/v4/receipts/verify`): that it is bound to the phone's key, and that the attestation
/// it was issued on was verified. Without a policy an unbound receipt of a request that brought no attestation is
/// valid: anyone holding the public key can have one, so an operation that must come from a genuine app demands both.
public struct ReceiptPolicy: Sendable, Equatable, Hashable {
    /// Whether the receipt must be bound (`cnf`): otherwise it is not valid, reason `unbound`.
    public var requiresBound: Bool
    /// Whether the receipt's attestation (`att`) must be `verified`: otherwise it is not valid, reason `unattested`.
    public var requiresVerifiedAttestation: Bool

    /// A policy demanding what its arguments say; the default demands nothing beyond the receipt's own checks.
    public init(requiresBound: Bool = false, requiresVerifiedAttestation: Bool = false) {
        self.requiresBound = requiresBound
        self.requiresVerifiedAttestation = requiresVerifiedAttestation
    }

    /// A bound receipt issued on a verified attestation: what an operation that must come from a genuine install of
    /// the app demands.
    public static let boundAndAttested = ReceiptPolicy(requiresBound: true, requiresVerifiedAttestation: true)

    /// The reasons `claims` fail this policy, in the order `unbound`, `unattested`; empty when it holds.
    public func violations(of claims: ReceiptClaims) -> [ReceiptReason] {
        var reasons: [ReceiptReason] = []
        if requiresBound, !claims.isBound { reasons.append(.unbound) }
        if requiresVerifiedAttestation, claims.attestation?.status != ReceiptAttestation.verified { reasons.append(.unattested) }
        return reasons
    }
}
