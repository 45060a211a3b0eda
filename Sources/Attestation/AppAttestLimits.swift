/// Bounds on what the App Attest verifier decodes, so hostile objects cost little.
public struct AppAttestLimits: Sendable, Equatable {
    /// Largest attestation or assertion object, in bytes (a genuine attestation is about 5 KiB, with its receipt).
    public var maxObjectBytes: Int
    /// Most certificates in `x5c` (Apple sends 2: the leaf and "Apple App Attestation CA 1"); more is
    /// `certificateChainInvalid` without parsing any.
    public var maxCertificates: Int

    /// Limits with the defaults: 64 KiB objects, 4 certificates.
    public init(maxObjectBytes: Int = 64 * 1024, maxCertificates: Int = 4) {
        self.maxObjectBytes = maxObjectBytes
        self.maxCertificates = maxCertificates
    }
}
