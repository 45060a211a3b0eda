/// Why bytes handed to GatehouseReceipts (a token, a JWKS, a JWK, a proof header) could not be read.
///
/// The message says what was wrong with the shape, never the bytes themselves, so it is safe to log.
public struct ReceiptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed to be read.
    public enum Kind: Sendable, Equatable {
        /// The compact JWS: segments, base64url, header or claims.
        case token
        /// A JWK or a JWKS document.
        case key
        /// The request proof header (`t=…,s=…`).
        case proof
        /// Input longer than the limits allow.
        case tooLarge
        /// Signing failed (OpenSSL).
        case signing
    }

    /// What failed to be read.
    public let kind: Kind
    /// What was wrong, in words.
    public let message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
