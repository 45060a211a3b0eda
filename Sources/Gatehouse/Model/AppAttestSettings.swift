import Attestation

/// An environment's App Attest settings beyond its app ids (docs/device-api.md "App Attest in depth"): the policy the
/// verifier applies, and which DeviceCheck key (if any) trades receipts for fresh ones. The key's private half is
/// never part of it.
public struct AppAttestSettings: Sendable, Equatable {
    /// Launch validation, bundle version and risk metric rules (the default asks nothing more than Apple's checks).
    public var policy = AppAttestPolicy()
    /// The DeviceCheck key's identifiers, when one is stored.
    public var deviceCheckKey: DeviceCheckKeyID?

    /// No policy, no key.
    public init() {}
}

/// A DeviceCheck key's non-secret identifiers: the 10-character key id and the team id it belongs to.
public struct DeviceCheckKeyID: Sendable, Equatable {
    public var keyID: String
    public var teamID: String

    public init(keyID: String, teamID: String) {
        self.keyID = keyID
        self.teamID = teamID
    }
}
