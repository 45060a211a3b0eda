import Crypto

/// The App Attest verifier of DEVICE-API.md: pure (bytes, a registration and a time in; a verdict out), no state,
/// no clock. Construct once, use from many threads.
public struct AppAttestVerifier: Sendable {
    /// The anchors attestation chains must lead to.
    public let roots: AppAttestRoots
    /// Bounds on the objects decoded.
    public let limits: AppAttestLimits

    /// A verifier trusting `roots`.
    public init(roots: AppAttestRoots) {
        self.init(roots: roots, limits: AppAttestLimits())
    }

    /// A verifier trusting `roots`, decoding within `limits`.
    public init(roots: AppAttestRoots, limits: AppAttestLimits) {
        self.roots = roots
        self.limits = limits
    }
}
