/// What an environment registered, as the verifier needs it.
public struct AppAttestRegistration: Sendable, Equatable {
    /// The registered app ids, "TEAMID.bundleId". Empty: App Attest is not set up, every verdict is
    /// unavailable / notConfigured.
    public var appIds: [String]
    /// Whether the environment's kind is production: development keys are then rejected `developmentKey`.
    /// A development environment accepts keys of both kinds.
    public var isProduction: Bool

    /// A registration of `appIds` in an environment of the given kind.
    public init(appIds: [String], isProduction: Bool) {
        self.appIds = appIds
        self.isProduction = isProduction
    }
}
