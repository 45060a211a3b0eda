import Attestation

/// A validated change to an environment's Play Integrity policy, as `playIntegrity.policy` in a PATCH says it (a JSON
/// Merge Patch of the policy's members, `null` for today's rules): read once with the patch
/// (``PlayIntegrityPolicyFields/parse(_:at:errors:)``), applied to the stored policy in the write transaction.
public struct PlayIntegrityPolicyEdit: Sendable, Equatable {
    /// One member set (a member written `null` sets today's rule for it).
    public enum Member: Sendable, Equatable {
        case deviceIntegrity(PlayIntegrityPolicy.DeviceIntegrity)
        case allowVirtual(Bool)
        case requireLicensed(Bool)
        case allowUnrecognizedVersion(Bool)
        case refuseUnusualAccountActivity(Bool)
        case rejectTestingResponses(Bool?)
        case minimumVersionCode([String: Int64])
        case minimumSdkVersion(Int?)
        case maximumActivityLevel(Int)
        case playProtect(Int)
        case appsDetected(Set<String>)
    }

    /// Whether the policy goes back to today's rules first (`null`).
    public var reset: Bool
    /// The members set, in the order written.
    public var members: [Member]

    /// `policy` with the change made.
    public func apply(to policy: inout PlayIntegrityPolicy) {
        if reset { policy = PlayIntegrityPolicy() }
        for member in members {
            switch member {
            case .deviceIntegrity(let level): policy.deviceIntegrity = level
            case .allowVirtual(let flag): policy.allowVirtual = flag
            case .requireLicensed(let flag): policy.requireLicensed = flag
            case .allowUnrecognizedVersion(let flag): policy.allowUnrecognizedVersion = flag
            case .refuseUnusualAccountActivity(let flag): policy.refuseUnusualAccountActivity = flag
            case .rejectTestingResponses(let flag): policy.rejectTestingResponses = flag
            case .minimumVersionCode(let codes): policy.minimumVersionCode = codes
            case .minimumSdkVersion(let level): policy.minimumSdkVersion = level
            case .maximumActivityLevel(let level): policy.maximumActivityLevel = level
            case .playProtect(let rank): policy.playProtect = rank
            case .appsDetected(let refused): policy.appsDetected = refused
            }
        }
    }
}
