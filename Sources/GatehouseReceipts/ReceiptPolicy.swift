/// What a backend demands of a receipt beyond its signature, expiry and environment (docs/device-api.md "Receipts", the
/// `require` member of `POST /api/v4/receipts/verify`): that it is bound to the phone's key, and that the attestation
/// it was issued on was verified. Without a policy an unbound receipt of a request that brought no attestation is
/// valid: anyone holding the public key can have one, so an operation that must come from a genuine app demands both.
/// A debug attestation (`att.provider` `debug`, docs/device-api.md "Debug tokens") is a bearer credential, not proof of a
/// genuine install: it meets `requiresVerifiedAttestation` only when the policy also says `allowsDebug`.
public struct ReceiptPolicy: Sendable, Equatable, Hashable {
    /// Whether the receipt must be bound (`cnf`): otherwise it is not valid, reason `unbound`.
    public var requiresBound: Bool
    /// Whether the receipt's attestation (`att`) must be `verified`: otherwise it is not valid, reason `unattested`.
    public var requiresVerifiedAttestation: Bool
    /// Whether a verified debug attestation (a debug token of a simulator, an emulator or CI) meets
    /// `requiresVerifiedAttestation`; by default it does not (reason `unattested`).
    public var allowsDebug: Bool

    /// A policy demanding what its arguments say; the default demands nothing beyond the receipt's own checks.
    public init(requiresBound: Bool = false, requiresVerifiedAttestation: Bool = false, allowsDebug: Bool = false) {
        self.requiresBound = requiresBound
        self.requiresVerifiedAttestation = requiresVerifiedAttestation
        self.allowsDebug = allowsDebug
    }

    /// A bound receipt issued on a verified attestation: what an operation that must come from a genuine install of
    /// the app demands.
    public static let boundAndAttested = ReceiptPolicy(requiresBound: true, requiresVerifiedAttestation: true)

    /// The reasons `claims` fail this policy, in the order `unbound`, `unattested`; empty when it holds.
    public func violations(of claims: ReceiptClaims) -> [ReceiptReason] {
        var reasons: [ReceiptReason] = []
        if requiresBound, !claims.isBound { reasons.append(.unbound) }
        if requiresVerifiedAttestation, !meetsAttestation(claims.attestation) { reasons.append(.unattested) }
        return reasons
    }

    /// Whether `attestation` is what `requiresVerifiedAttestation` asks: verified, and not a debug one unless allowed.
    func meetsAttestation(_ attestation: ReceiptAttestation?) -> Bool {
        guard let attestation, attestation.status == ReceiptAttestation.verified else { return false }
        return allowsDebug || attestation.provider != ReceiptAttestation.debugProvider
    }
}
