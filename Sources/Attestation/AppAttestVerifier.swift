import Crypto

/// The App Attest verifier of docs/device-api.md: pure (bytes, a registration and a time in; a verdict out), no state,
/// no clock. Construct once, use from many threads.
public struct AppAttestVerifier: Sendable {
    /// The anchors attestation chains must lead to.
    public let roots: AppAttestRoots
    /// The reader of attestations' receipts; nil leaves them unchecked.
    public let receipts: AppAttestReceiptReader?
    /// Bounds on the objects decoded.
    public let limits: AppAttestLimits

    /// A verifier trusting `roots` for attestations and `receiptRoots` (when given) for their receipts, decoding
    /// within `limits`.
    public init(roots: AppAttestRoots, receiptRoots: AppAttestRoots? = nil, limits: AppAttestLimits = AppAttestLimits()) {
        self.roots = roots
        self.receipts = receiptRoots.map { AppAttestReceiptReader(roots: $0) }
        self.limits = limits
    }
}
