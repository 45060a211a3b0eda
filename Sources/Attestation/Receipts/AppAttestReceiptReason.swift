/// Why a receipt is not accepted (the `reasons` of `verify-receipt` and of a registration's observed receipt).
public enum AppAttestReceiptReason: String, Sendable, Equatable, CaseIterable {
    /// Not a CMS SignedData with one signer, or its content is not the receipt's `SET OF SEQUENCE` with the fields
    /// every receipt has (2, 3, 6, 12), or it is longer than the limit.
    case malformed
    /// The signer's signature does not verify, over the signed attributes nor over the content.
    case signatureInvalid
    /// The signer's certificate does not chain to a receipt root at the verification time.
    case certificateChainInvalid
    /// The signer's certificate lacks Apple's receipt-signing marker (extension 1.2.840.113635.100.12.15).
    case notReceiptSigner
    /// The type is not the one expected (`ATTEST` at registration, `RECEIPT` from a refresh).
    case typeMismatch
    /// The app id is not the key's.
    case appIdMismatch
    /// Field 3's certificate does not hold the attested key.
    case publicKeyMismatch
    /// The verification time is past the receipt's expiration time.
    case expired
    /// A receipt just received from Apple was made more than five minutes from now.
    case stale
}
