import Crypto

/// The stored state of one attested key that an assertion is judged against.
public struct AttestedKeyState: Sendable {
    /// The attested key.
    public var publicKey: ECPublicKey
    /// The app id the key was attested for.
    public var appId: String
    /// The environment the key was made in.
    public var environment: AttestationEnvironment
    /// The counters seen so far.
    public var counter: CounterWindow
    /// Apple's fraud risk metric from the key's last receipt, when a refresh brought one.
    public var riskMetric: Int?

    /// The state of a key.
    public init(publicKey: ECPublicKey, appId: String, environment: AttestationEnvironment, counter: CounterWindow, riskMetric: Int? = nil) {
        self.publicKey = publicKey
        self.appId = appId
        self.environment = environment
        self.counter = counter
        self.riskMetric = riskMetric
    }
}
