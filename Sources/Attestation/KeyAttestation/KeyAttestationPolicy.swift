/// What an environment accepts of Android key attestation (docs/device-api.md "The policy"): whether it is on, the
/// least security level, the boot keys of operating systems accepted besides the phone maker's (GrapheneOS's), whether
/// the bootloader must be locked, the least patch level, the least version code per package, and whether a revoked
/// certificate refuses or is only observed.
public struct KeyAttestationPolicy: Sendable, Equatable {
    /// Whether the environment accepts the provider at all (off: registrations are `keyAttestationDisabled`).
    public var enabled = false
    public var securityLevel: KeySecurityLevel = .trustedEnvironment
    /// Boot keys (lowercase hex of `verifiedBootKey`) accepted for a self-signed boot.
    public var bootKeys: [String] = []
    public var requireLocked = true
    /// The least `osPatchLevel`, YYYYMM.
    public var minimumPatchLevel: Int?
    /// The least version code, by package name.
    public var minimumVersionCode: [String: Int64] = [:]
    public var revocation: Revocation = .refuse

    /// What a certificate on Google's revocation list does to a verdict.
    public enum Revocation: String, Sendable, CaseIterable {
        /// `certificateRevoked` / `certificateSuspended`.
        case refuse
        /// Only `observed.revocation` says it.
        case observe
    }

    public init() {}

    /// `YYYY-MM` as YYYYMM (the key description's osPatchLevel); nil for anything else.
    public static func patchLevel(_ text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
              (2000...2100).contains(year), (1...12).contains(month) else { return nil }
        return year * 100 + month
    }

    /// YYYYMM as `YYYY-MM`.
    public static func patchLevelText(_ value: Int) -> String {
        let year = value / 100, month = value % 100
        return "\(year)-\(month < 10 ? "0" : "")\(month)"
    }
}

/// Google's attestation status list as last fetched (`https://android.googleapis.com/attestation/status`): the
/// certificates revoked or suspended, by serial (lowercase hex, no leading zeros).
public struct KeyAttestationStatusList: Sendable, Equatable {
    public enum Status: String, Sendable {
        case revoked = "REVOKED"
        case suspended = "SUSPENDED"
    }

    public var entries: [String: Status]

    public init(entries: [String: Status]) {
        self.entries = entries
    }
}
