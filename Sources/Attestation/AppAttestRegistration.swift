/// What an environment registered, as the verifier needs it.
public struct AppAttestRegistration: Sendable, Equatable {
    /// The registered app ids, "TEAMID.bundleId". Empty: App Attest is not set up, every verdict is
    /// unavailable / notConfigured.
    public var appIds: [String]
    /// Whether the environment's kind is production: development keys are then rejected `developmentKey`.
    /// A development environment accepts keys of both kinds.
    public var isProduction: Bool
    /// What the environment asks beyond Apple's checks: launch validation, bundle version, risk metric.
    public var policy: AppAttestPolicy

    /// A registration of `appIds` in an environment of the given kind, asking `policy`.
    public init(appIds: [String], isProduction: Bool, policy: AppAttestPolicy = AppAttestPolicy()) {
        self.appIds = appIds
        self.isProduction = isProduction
        self.policy = policy
    }
}
