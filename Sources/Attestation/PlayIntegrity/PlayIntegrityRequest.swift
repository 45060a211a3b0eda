/// What the device request says the token is for (docs/device-api.md `POST /api/v4/attestation/play-integrity`).
public struct PlayIntegrityRequest: Sendable, Equatable {
    /// The package the request speaks for.
    public var packageName: String
    /// What the app passed to Play Integrity as `requestHash` (standard) or `nonce` (classic).
    public var requestHash: String

    /// A request for `packageName` bound to `requestHash`.
    public init(packageName: String, requestHash: String) {
        self.packageName = packageName
        self.requestHash = requestHash
    }
}
