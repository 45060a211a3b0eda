import Crypto

/// The keys an Android key attestation chain must reach, pinned by value (DER SubjectPublicKeyInfo): Google's
/// (``google()``), or a PEM file's in their place (`--key-attestation-roots`: tests, the simulator). A certificate
/// that holds a pinned key is trusted for its key alone; its dates and constraints are not read.
public struct KeyAttestationRoots: Sendable {
    /// The pinned keys, DER SubjectPublicKeyInfo.
    public var keys: [[UInt8]] { issuers.map(\.der) }
    /// The pinned keys, decoded once (a chain's last certificate is checked against them).
    let issuers: [Certificate.IssuerKey]

    /// The keys of the certificates in `pem`.
    /// - Throws: `CertificateError` when the PEM holds no certificate.
    public init(pem: String) throws {
        let certificates = try Certificate.chain(pem: pem)
        guard !certificates.isEmpty else { throw CertificateError(.malformed, "no certificate in the roots") }
        var keys: [[UInt8]] = []
        for key in certificates.map(\.publicKeyDER) where !keys.contains(key) { keys.append(key) }
        issuers = try keys.map { try Certificate.IssuerKey(der: $0) }
    }

    /// Google's roots (``googlePEM``).
    /// - Throws: `CertificateError` if the built-in PEM is broken (a build mistake, caught by the tests).
    public static func google() throws -> KeyAttestationRoots {
        try KeyAttestationRoots(pem: googlePEM)
    }

    /// Whether these are Google's roots (a replacement is logged as a warning).
    public var isGoogle: Bool {
        (try? Self.google().keys) == keys
    }

    /// The lowercase hex SHA-256 of a pinned key (`observed.root`).
    static func fingerprint(_ key: [UInt8]) -> String {
        Hex.encode(SHA256.hash(key))
    }
}
