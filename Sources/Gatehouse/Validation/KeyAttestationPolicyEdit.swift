import Attestation

/// A validated change to an environment's Key Attestation policy, as `keyAttestation` in a PATCH says it (a JSON Merge
/// Patch of the policy's members, `null` for the defaults): read once with the patch
/// (``KeyAttestationPolicyFields/parse(_:at:errors:)``), applied to the stored policy in the write transaction.
public struct KeyAttestationPolicyEdit: Sendable, Equatable {
    /// One member set (a member written `null` sets its default).
    public enum Member: Sendable, Equatable {
        case enabled(Bool)
        case securityLevel(KeySecurityLevel)
        case bootKeys([String])
        case requireLocked(Bool)
        case minimumPatchLevel(Int?)
        case minimumVersionCode([String: Int64])
        case revocation(KeyAttestationPolicy.Revocation)
    }

    /// Whether the policy goes back to its defaults first (`null`).
    public var reset: Bool
    /// The members set, in the order written.
    public var members: [Member]

    /// `policy` with the change made.
    public func apply(to policy: inout KeyAttestationPolicy) {
        if reset { policy = KeyAttestationPolicy() }
        for member in members {
            switch member {
            case .enabled(let flag): policy.enabled = flag
            case .securityLevel(let level): policy.securityLevel = level
            case .bootKeys(let keys): policy.bootKeys = keys
            case .requireLocked(let flag): policy.requireLocked = flag
            case .minimumPatchLevel(let level): policy.minimumPatchLevel = level
            case .minimumVersionCode(let codes): policy.minimumVersionCode = codes
            case .revocation(let handling): policy.revocation = handling
            }
        }
    }
}
