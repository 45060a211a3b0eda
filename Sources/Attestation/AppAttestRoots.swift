import Crypto

/// The trust anchors an attestation's `x5c` chain must lead to: Apple's App Attestation Root CA (built in, checked
/// by its SHA-256 fingerprint), or the certificates of a PEM file that replaces it (`--app-attest-roots`, for tests
/// and private deployments).
public struct AppAttestRoots: Sendable {
    /// The root certificates; a chain verifies when it leads to any of them.
    public let certificates: [Certificate]

    /// The built-in Apple App Attestation Root CA.
    ///
    /// - Throws: ``AppAttestRootsError`` when the built-in certificate does not parse or its SHA-256 fingerprint is
    ///   not Apple's (the binary was tampered with or mis-built).
    public static func apple() throws -> AppAttestRoots {
        let certificate: Certificate
        do {
            certificate = try Certificate(pem: applePEM)
        } catch {
            throw AppAttestRootsError("the built-in Apple App Attestation Root CA does not parse: \(error)")
        }
        guard SHA256.hash(certificate.der) == appleFingerprint else {
            throw AppAttestRootsError("the built-in Apple App Attestation Root CA does not have Apple's SHA-256 fingerprint")
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

    /// Whether these are exactly the built-in Apple root (a server logs a warning when they are not).
    public var isApple: Bool {
        certificates.count == 1 && certificates.first.map { SHA256.hash($0.der) == Self.appleFingerprint } == true
    }
}
