import Crypto

/// Trust anchors: those an attestation's `x5c` chain must lead to (Apple's App Attestation Root CA, built in, or a
/// PEM file replacing it: `--app-attest-roots`), or those a receipt's signer must lead to (Apple Root CA - G3, built
/// in, or `--app-attest-receipt-roots`). Built-in roots are checked by their SHA-256 fingerprint.
public struct AppAttestRoots: Sendable {
    /// The root certificates; a chain verifies when it leads to any of them.
    public let certificates: [Certificate]

    /// The built-in Apple App Attestation Root CA, the anchor of attestations.
    ///
    /// - Throws: ``AppAttestRootsError`` when the built-in certificate does not parse or its SHA-256 fingerprint is
    ///   not Apple's (the binary was tampered with or mis-built).
    public static func apple() throws -> AppAttestRoots {
        try builtIn(pem: applePEM, fingerprint: appleFingerprint, name: "Apple App Attestation Root CA")
    }

    /// The built-in Apple Root CA - G3, the anchor of App Attest receipts (through "Apple Application Integration
    /// CA 5 - G1").
    ///
    /// - Throws: ``AppAttestRootsError`` as ``apple()`` does.
    public static func appleReceipts() throws -> AppAttestRoots {
        try builtIn(pem: appleG3PEM, fingerprint: appleG3Fingerprint, name: "Apple Root CA - G3")
    }

    private static func builtIn(pem: String, fingerprint: [UInt8], name: String) throws -> AppAttestRoots {
        let certificate: Certificate
        do {
            certificate = try Certificate(pem: pem)
        } catch {
            throw AppAttestRootsError("the built-in \(name) does not parse: \(error)")
        }
        guard SHA256.hash(certificate.der) == fingerprint else {
            throw AppAttestRootsError("the built-in \(name) does not have Apple's SHA-256 fingerprint")
        }
        return AppAttestRoots(certificates: [certificate])
    }

    /// The certificates of a PEM text (one or more `CERTIFICATE` blocks), replacing Apple's root.
    ///
    /// - Throws: ``AppAttestRootsError`` when the text holds no certificate or a block does not parse.
    public init(pem: String) throws {
        do {
            self.init(certificates: try Certificate.chain(pem: pem))
        } catch {
            throw AppAttestRootsError("the App Attest roots do not parse: \(error)")
        }
    }

    /// Roots from parsed certificates.
    public init(certificates: [Certificate]) {
        self.certificates = certificates
    }

    /// Whether these are exactly the built-in Apple App Attestation Root CA (a server logs a warning when not).
    public var isApple: Bool { isOnly(Self.appleFingerprint) }

    /// Whether these are exactly the built-in Apple Root CA - G3 (a server logs a warning when receipt roots are not).
    public var isAppleReceipts: Bool { isOnly(Self.appleG3Fingerprint) }

    private func isOnly(_ fingerprint: [UInt8]) -> Bool {
        certificates.count == 1 && certificates.first.map { SHA256.hash($0.der) == fingerprint } == true
    }
}
