import Crypto

/// Signs receipts: ES256 compact JWS (RFC 7515 §7.1) under one private key named by its `kid`.
/// What the Gatehouse server uses; an app backend only verifies.
public struct ReceiptSigner: Sendable {
    /// The signing key.
    let privateKey: ECPrivateKey
    /// The key parsed once (OpenSSL 3's parse costs more than a signature); nil when it could not be prepared, and
    /// then each signature parses the key itself.
    let prepared: ECSigningKey?
    /// The key's id in the JWKS.
    public let kid: String

    /// A signer with `privateKey`, published under `kid`.
    public init(privateKey: ECPrivateKey, kid: String) {
        self.privateKey = privateKey
        self.prepared = try? ECSigningKey(privateKey)
        self.kid = kid
    }

    /// The public half as a JWKS entry.
    public var publicJWK: PublicJWK { PublicJWK(publicKey: privateKey.publicKey, kid: kid) }

    /// `base64url(header).base64url(claims).base64url(r ‖ s)`.
    ///
    /// - Throws: ``ReceiptError`` (`.signing`) when OpenSSL fails to sign.
    public func sign(_ claims: ReceiptClaims) throws(ReceiptError) -> String {
        let signingInput = Base64URL.encode(ReceiptHeader.text(kid: kid)) + "." + Base64URL.encode(claims.json.serialized())
        let signature: [UInt8]
        do {
            let input = Array(signingInput.utf8)
            signature = try prepared?.signature(for: input, format: .raw) ?? privateKey.rawSignature(for: input)
        } catch {
            throw ReceiptError(.signing, "signing the receipt failed")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }
}

/// A signer holds a private key: it prints and mirrors as its `kid` only.
extension ReceiptSigner: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `ReceiptSigner(kid: …)`.
    public var description: String { "ReceiptSigner(kid: \(kid))" }
    /// As ``description``.
    public var debugDescription: String { description }
    /// The `kid` alone.
    public var customMirror: Mirror { Mirror(self, children: ["kid": kid]) }
}
