/// The outcome of an assertion.
public struct AssertionResult: Sendable {
    /// The judgement.
    public var verdict: Verdict
    /// The assertion's counter, when authenticatorData could be read.
    public var counter: UInt32?
    /// Only when verified: the counter state to commit (conditionally, on the state judged against) before answering.
    public var newWindow: CounterWindow?
    /// The authenticator data's extensions (iOS 27 and later), once the signature verified.
    public var extensions: AppAttestExtensions?

    /// A result with `verdict`, the counter read, the window to commit and the extensions read.
    public init(verdict: Verdict, counter: UInt32? = nil, newWindow: CounterWindow? = nil, extensions: AppAttestExtensions? = nil) {
        self.verdict = verdict
        self.counter = counter
        self.newWindow = newWindow
        self.extensions = extensions
    }
}
