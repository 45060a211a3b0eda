import Attestation

/// What a key registration answers (docs/device-api.md "Key registration"): the verdict and what was learnt.
public struct RegistrationOutcome: Sendable {
    public var verdict: Verdict
    /// The key id as the device claimed it.
    public var keyID: [UInt8]
    /// The registered app id the attestation was made for, when it could be read.
    public var appID: String?
    /// The App Attest environment of the key, when it could be read.
    public var attestationEnvironment: AttestationEnvironment?
    /// The launch validation category, bundle version and receipt it showed.
    public var observed: AppAttestObservation
}

/// What an assertion answers (docs/device-api.md "Assertion"): the verdict and the assertion's counter, if readable.
public struct AssertionOutcome: Sendable {
    public var verdict: Verdict
    public var counter: UInt32?
    /// The launch validation category and bundle version it carried, and the key's risk metric.
    public var observed = AppAttestObservation()
}

extension Verdict {
    /// This verdict with `reason` added: the status becomes the graver of the two.
    func adding(_ reason: Reason) -> Verdict {
        Verdict(reasons: reasons.map { Reason(status, $0) } + [reason])
    }

    /// A verdict of one reason.
    static func of(_ reason: Reason) -> Verdict {
        Verdict(reasons: [reason])
    }
}
