import JSON

/// What checking a receipt (and its proof) found: valid or not, why not, and what the receipt says once its
/// signature verified (nil fields before that: nothing unsigned is reported).
public struct ReceiptVerification: Sendable, Equatable {
    /// No reasons.
    public var valid: Bool { reasons.isEmpty }
    /// Why it is not valid, in the order found; empty when valid.
    public var reasons: [ReceiptReason]
    /// The signed claims, when the signature verified.
    public var claims: ReceiptClaims?

    /// A result with `reasons` and the `claims` read, if any.
    public init(reasons: [ReceiptReason], claims: ReceiptClaims?) {
        self.reasons = reasons
        self.claims = claims
    }

    /// The receipt's environment (`env`).
    public var environment: String? { claims?.environment }
    /// The platform the receipt's request was assessed as (`plat`).
    public var platform: String? { claims?.platform }
    /// The receipt's action.
    public var action: ReceiptAction? { claims?.action }
    /// The attestation the receipt was issued on.
    public var attestation: ReceiptAttestation? { claims?.attestation }
    /// Whether the receipt is bound to a phone key (false when unknown).
    public var bound: Bool { claims?.isBound ?? false }
    /// When the receipt expires, unix seconds.
    public var expiresAt: Int64? { claims?.expiresAt }

    /// The answer of `POST /api/v4/receipts/verify`:
    /// `{"valid", "reasons", "environment", "platform", "action", "attestation", "bound", "expiresAt"}` (RFC 3339, or
    /// null).
    public var json: JSON {
        [
            "valid": .bool(valid),
            "reasons": .array(reasons.map { .string($0.rawValue) }),
            "environment": .optional(environment),
            "platform": .optional(platform),
            "action": .optional(action?.rawValue),
            "attestation": attestation.map { ["provider": .string($0.provider), "status": .string($0.status)] } ?? .null,
            "bound": .bool(bound),
            "expiresAt": .optional(expiresAt.map(Timestamp.format)),
        ]
    }
}
