import Crypto

extension AppAttestVerifier {
    /// Judges an assertion by an attested key (docs/device-api.md "Assertion"): the DER ECDSA P-256 signature over
    /// nonce = SHA-256(authenticatorData ‖ clientDataHash) (so the digest signed is SHA-256(nonce)), the rpIdHash
    /// against the key's app id, the counter window, and `developmentKey` when the registration is production and
    /// the key a development one, and `appIdNotRegistered` when the key's app id is no longer registered; then the
    /// registration's policy (launch validation, bundle version, the key's risk metric). Extensions that do not read
    /// are `assertionInvalid`.
    ///
    /// The counter is judged only once the signature and rpIdHash hold: a forged assertion spends no counter. Only
    /// a verified assertion carries `newWindow`, the state to commit before answering.
    public func verifyAssertion(_ request: AssertionRequest, key: AttestedKeyState, registration: AppAttestRegistration) -> AssertionResult {
        guard request.assertion.count <= limits.maxObjectBytes, let object = try? AssertionObject(request.assertion) else {
            return AssertionResult(verdict: Verdict(reasons: [.assertionInvalid]))
        }
        let counter = object.authenticatorData.signCount
        let nonce = SHA256.hash(object.authenticatorDataBytes + request.clientDataHash)
        guard key.publicKey.isValidSignature(object.signature, format: .der, for: nonce) else {
            return AssertionResult(verdict: Verdict(reasons: [.assertionInvalid]), counter: counter)
        }
        guard object.authenticatorData.rpIdHash == SHA256.hash(key.appId) else {
            return AssertionResult(verdict: Verdict(reasons: [.rpIdMismatch]), counter: counter)
        }
        let extensions: AppAttestExtensions?
        do {
            extensions = try AppAttestExtensions.read(object.authenticatorData.extensionBytes)
        } catch {
            return AssertionResult(verdict: Verdict(reasons: [.assertionInvalid]), counter: counter)
        }
        var reasons: [Reason] = []
        var window: CounterWindow?
        switch key.counter.judge(counter) {
        case .reused: return AssertionResult(verdict: Verdict(reasons: [.counterReused]), counter: counter, extensions: extensions)
        case .regression: reasons.append(.counterRegression)
        case .accept(let next): window = next
        }
        if registration.isProduction && key.environment == .development { reasons.append(.developmentKey) }
        // A key speaks only while its app is registered: removing the app id silences the keys attested for it.
        if !registration.appIds.contains(key.appId) { reasons.append(.appIdNotRegistered) }
        reasons += registration.policy.reasons(for: extensions) + registration.policy.reasons(forRiskMetric: key.riskMetric)
        guard reasons.isEmpty else { return AssertionResult(verdict: Verdict(reasons: reasons), counter: counter, extensions: extensions) }
        return AssertionResult(verdict: .verified, counter: counter, newWindow: window, extensions: extensions)
    }
}
