import Crypto
import GatehouseReceipts

/// Issues receipts (the `sessionToken` of `POST /api/v4/assess`, docs/device-api.md "Receipts"): ES256 under the current
/// receipt key, valid ten minutes from the store's time, bound to the phone's key when one is given.
public struct ReceiptIssuer: Sendable {
    let keys: ReceiptKeys

    /// An issuer signing with `keys`' current key.
    init(_: Wiring, keys: ReceiptKeys) {
        self.keys = keys
    }

    /// A receipt for request `requestID` of environment `environmentID`, assessed as `platform` (`plat`).
    ///
    /// - Parameter receiptKey: the phone's P-256 public key as DER SubjectPublicKeyInfo (`signed.receiptKey`); when
    ///   given the receipt carries it as `cnf.jwk` and needs a proof by it on every call.
    /// - Throws: `ValidationError` at `/signed/receiptKey` when the key is not a P-256 SubjectPublicKeyInfo;
    ///   `StorageError`, `CryptoError` or `DomainError` when the signing key cannot be had; `ReceiptError` when
    ///   signing fails.
    public func issue(environmentID: String, requestID: String, platform: String, action: ReceiptAction,
                      attestation: ReceiptAttestation?, receiptKey: [UInt8]?) throws -> String {
        var confirmation: ECPublicKey?
        if let receiptKey {
            guard let key = try? ECPublicKey(derSubjectPublicKeyInfo: receiptKey) else {
                throw ValidationError("/signed/receiptKey", "must be base64 of a P-256 public key as DER SubjectPublicKeyInfo")
            }
            confirmation = key
        }
        return try issue(environmentID: environmentID, requestID: requestID, platform: platform, action: action, attestation: attestation,
                         confirmationKey: confirmation)
    }

    /// A receipt as above, bound to `confirmationKey` (already parsed) when given.
    ///
    /// - Throws: `StorageError`, `CryptoError` or `DomainError` when the signing key cannot be had; `ReceiptError`
    ///   when signing fails.
    public func issue(environmentID: String, requestID: String, platform: String, action: ReceiptAction,
                      attestation: ReceiptAttestation?, confirmationKey: ECPublicKey?) throws -> String {
        let claims = ReceiptClaims(environment: environmentID, subject: requestID, issuedAt: keys.store.clock(), platform: platform,
                                   action: action,
                                   attestation: attestation, confirmationKey: confirmationKey.map { PublicJWK(publicKey: $0) })
        return try keys.signer().sign(claims)
    }
}
