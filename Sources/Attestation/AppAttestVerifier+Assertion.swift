import Crypto

extension AppAttestVerifier {
    /// Judges an assertion by an attested key (DEVICE-API.md "Assertion"): the signature over the nonce, the rpIdHash
    /// against the key's app id, the counter window, and `developmentKey` when the registration is production and
    /// the key a development one. A verdict other than verified spends no counter (`newWindow` is nil).
    public func verifyAssertion(_ request: AssertionRequest, key: AttestedKeyState, registration: AppAttestRegistration) -> AssertionResult {
        AssertionResult(verdict: Verdict(reasons: [.assertionInvalid]))
    }
}
