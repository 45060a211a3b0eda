import Crypto
import GatehouseReceipts
import JSON

/// A signing key, its JWKS, a phone key, and helpers to make and alter receipts.
struct ReceiptFixture {
    static let environment = "env_test"
    static let issuedAt: Int64 = 1_795_000_000

    let signer: ReceiptSigner
    let keys: JWKS
    let phone: ECPrivateKey

    init() throws {
        let key = try ECPrivateKey.generate()
        let kid = PublicJWK(publicKey: key.publicKey).thumbprint
        signer = ReceiptSigner(privateKey: key, kid: kid)
        keys = JWKS(keys: [signer.publicJWK])
        phone = try ECPrivateKey.generate()
    }

    var verifier: ReceiptVerifier { ReceiptVerifier(keys: keys, environment: Self.environment) }

    static let verified = ReceiptAttestation(provider: "app-attest", status: "verified")

    func claims(bound: Bool, environment: String = Self.environment, action: ReceiptAction = .allow,
                attestation: ReceiptAttestation? = Self.verified) -> ReceiptClaims {
        ReceiptClaims(environment: environment, subject: "req_1", issuedAt: Self.issuedAt, platform: "ios", action: action,
                      attestation: attestation, confirmationKey: bound ? PublicJWK(publicKey: phone.publicKey) : nil)
    }

    func token(bound: Bool, environment: String = Self.environment, attestation: ReceiptAttestation? = Self.verified) throws -> String {
        try signer.sign(claims(bound: bound, environment: environment, attestation: attestation))
    }

    /// Milliseconds `seconds` after the receipt was issued.
    static func at(_ seconds: Int64) -> Int64 { (issuedAt + seconds) * 1000 }

    /// A proof by the phone key for `method path` signed at `timestamp`.
    func proof(_ method: String = "GET", _ path: String = "/api/orders?page=2", at timestamp: Int64) throws -> String {
        try RequestProof.sign(method: method, pathAndQuery: path, timestamp: timestamp, key: phone).header
    }

    /// The three segments of a token, decoded.
    static func segments(_ token: String) -> [[UInt8]] {
        token.split(separator: ".", omittingEmptySubsequences: false).map { Base64.decode(String($0)) ?? [] }
    }

    /// Joins segments back into a token.
    static func join(_ segments: [[UInt8]]) -> String {
        segments.map { Base64.encode($0, alphabet: .urlSafe, padded: false) }.joined(separator: ".")
    }
}
