import Crypto
import JSON

/// A JSON Web Key Set (RFC 7517 §5) of receipt signing keys: what `GET /api/v4/receipts/keys` serves and what a
/// backend hands to ``ReceiptVerifier``.
public struct JWKS: Sendable, Equatable {
    /// The keys, each with a `kid`.
    public let keys: [PublicJWK]
    /// A set of `keys`.
    public init(keys: [PublicJWK]) {
        self.keys = keys
    }

    /// Equal when the keys are.
    public static func == (a: JWKS, b: JWKS) -> Bool {
        a.keys == b.keys
    }

    /// Reads `{"keys": [JWK, …]}` strictly, within `limits`.
    ///
    /// - Throws: ``ReceiptError``: `.tooLarge` over the byte or key limit, `.key` when it is not a JWKS of EC P-256
    ///   signing keys each with a unique `kid`.
    public init(bytes: [UInt8], limits: ReceiptLimits = ReceiptLimits()) throws(ReceiptError) {
        guard bytes.count <= limits.maxKeySetBytes else {
            throw ReceiptError(.tooLarge, "the JWKS is over \(limits.maxKeySetBytes) bytes")
        }
        let object = try StrictObject(bytes: bytes, kind: .key, what: "the JWKS")
        guard let list = object["keys"]?.array else { throw ReceiptError(.key, "the JWKS needs keys as an array") }
        guard list.count <= limits.maxKeys else { throw ReceiptError(.tooLarge, "the JWKS has over \(limits.maxKeys) keys") }
        var keys: [PublicJWK] = []
        var seen: Set<String> = []
        for entry in list {
            let key = try PublicJWK(json: entry)
            guard let kid = key.kid else { throw ReceiptError(.key, "every key of the JWKS needs a kid") }
            guard seen.insert(kid).inserted else { throw ReceiptError(.key, "the JWKS names kid \(kid) twice") }
            keys.append(key)
        }
        self.init(keys: keys)
    }

    /// Reads a JWKS from its text. Throws as ``init(bytes:limits:)``.
    public init(text: String, limits: ReceiptLimits = ReceiptLimits()) throws(ReceiptError) {
        try self.init(bytes: Array(text.utf8), limits: limits)
    }

    /// The key named `kid`, or nil.
    public func key(kid: String) -> PublicJWK? {
        keys.first { $0.kid == kid }
    }

    /// Whether `signature` (raw R‖S) verifies over `message` under the key `kid` (false for an unknown kid).
    func verifies(kid: String, signature: [UInt8], message: [UInt8]) -> Bool {
        return key(kid: kid)?.publicKey.isValidSignature(signature, format: .raw, for: message) ?? false
    }

    /// `{"keys": [...]}`.
    public var json: JSON {
        ["keys": .array(keys.map(\.json))]
    }

    /// The compact UTF-8 serialization of ``json``.
    public func serialized() -> [UInt8] {
        json.serialized()
    }
}
