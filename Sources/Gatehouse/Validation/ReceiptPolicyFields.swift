import GatehouseReceipts
import JSON

/// Reads a receipt policy, `{"bound": bool, "attestation": "verified", "debug": bool}` (each member optional; absent
/// or null: nothing required), as `POST /api/v4/receipts/verify`'s `require` and an enforcement route's `require`
/// take it. Anything else is named by pointer.
public enum ReceiptPolicyFields {
    public static func parse(_ value: JSON?, at pointer: String, errors: inout FieldErrors) -> ReceiptPolicy {
        var policy = ReceiptPolicy()
        switch value {
        case nil, .null?:
            return policy
        case .object(let members)?:
            for member in members {
                let at = Pointer.join(pointer, member.key)
                switch (member.key, member.value) {
                case ("bound", .bool(let bound)):
                    policy.requiresBound = bound
                case ("bound", _):
                    errors.add(at, "must be true (only bound receipts are valid) or false")
                case ("attestation", .string(ReceiptAttestation.verified)):
                    policy.requiresVerifiedAttestation = true
                case ("attestation", .null):
                    policy.requiresVerifiedAttestation = false
                case ("attestation", _):
                    errors.add(at, "must be \"verified\" (only receipts issued on a verified attestation are valid), or null")
                case ("debug", .bool(let debug)):
                    policy.allowsDebug = debug
                case ("debug", _):
                    errors.add(at, "must be true (a debug token's attestation meets \"attestation\": \"verified\") or false")
                default:
                    errors.add(at, "is not a policy member: require takes bound, attestation and debug")
                }
            }
            return policy
        default:
            errors.add(pointer, "must be an object {\"bound\": true, \"attestation\": \"verified\"} (each member optional)")
            return policy
        }
    }

    /// The policy as the API shows it: only what it requires.
    public static func json(_ policy: ReceiptPolicy) -> JSON {
        var members: [JSON.Member] = []
        if policy.requiresBound { members.append(.init("bound", .bool(true))) }
        if policy.requiresVerifiedAttestation { members.append(.init("attestation", .string(ReceiptAttestation.verified))) }
        if policy.allowsDebug { members.append(.init("debug", .bool(true))) }
        return .object(members)
    }
}
