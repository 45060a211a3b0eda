import Crypto

/// The proof a bound receipt's phone sends with each call (docs/device-api.md "Receipts", seed 003 "Binding the receipt
/// to the phone"): `t=<unix ms>,s=<base64url signature>`, ECDSA P-256 with SHA-256 by the receipt's `cnf` key over
/// `<t>\n<METHOD>\n<pathAndQuery>`. The signature is `r ‖ s` (64 bytes) or DER.
public struct RequestProof: Sendable, Equatable {
    /// When the phone signed, unix milliseconds.
    public let timestamp: Int64
    /// The signature bytes, raw or DER.
    public let signature: [UInt8]

    /// A proof signed at `timestamp` with `signature`.
    public init(timestamp: Int64, signature: [UInt8]) {
        self.timestamp = timestamp
        self.signature = signature
    }

    /// Reads the header value `t=<digits>,s=<base64url>` exactly (that order, no spaces, no padding).
    ///
    /// - Throws: ``ReceiptError``: `.tooLarge` over `limits.maxProofBytes`; `.proof` for any other shape, a time of
    ///   more than 15 digits, or a signature that is neither 64 bytes nor a DER sequence of at most 72.
    public init(header: String, limits: ReceiptLimits = ReceiptLimits()) throws(ReceiptError) {
        guard header.utf8.count <= limits.maxProofBytes else { throw ReceiptError(.tooLarge, "the proof is over \(limits.maxProofBytes) bytes") }
        // Read as bytes: splitting the String walks grapheme clusters, which costs more than the rest of the parse.
        let bytes = Array(header.utf8)
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), bytes.starts(with: "t=".utf8),
              bytes[(comma + 1)...].starts(with: "s=".utf8), !bytes[(comma + 1)...].contains(UInt8(ascii: ",")) else {
            throw ReceiptError(.proof, "the proof must read t=<unix ms>,s=<base64url signature>")
        }
        let digits = bytes[2..<comma]
        // No leading zero: the signed text is the number's decimal spelling, so each time has one spelling.
        guard (1...15).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }),
              digits.first != UInt8(ascii: "0") || digits.count == 1 else {
            throw ReceiptError(.proof, "the proof's t must be unix milliseconds (1 to 15 digits, no leading zero)")
        }
        let timestamp = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }  // at most 15 digits: no overflow
        guard let signature = Base64.decodeURLSafeUnpadded(bytes[(comma + 3)...]),
              signature.count == 64 || (signature.count <= 72 && signature.first == 0x30) else {
            throw ReceiptError(.proof, "the proof's s must be base64url of an ECDSA signature (r ‖ s or DER)")
        }
        self.timestamp = timestamp
        self.signature = signature
    }

    /// The header value, `t=<timestamp>,s=<base64url signature>`.
    public var header: String {
        "t=\(timestamp),s=" + Base64URL.encode(signature)
    }

    /// The bytes signed: `<t>\n<METHOD>\n<pathAndQuery>`.
    public static func message(timestamp: Int64, method: String, pathAndQuery: String) -> [UInt8] {
        Array("\(timestamp)\n\(method)\n\(pathAndQuery)".utf8)
    }

    /// A proof for `method` and `pathAndQuery` at `timestamp` by `key` (raw `r ‖ s`): what the phone SDK does, for
    /// tests and simulators.
    ///
    /// - Throws: ``ReceiptError`` (`.signing`) when OpenSSL fails to sign.
    public static func sign(method: String, pathAndQuery: String, timestamp: Int64, key: ECPrivateKey) throws(ReceiptError) -> RequestProof {
        do {
            let signature = try key.rawSignature(for: message(timestamp: timestamp, method: method, pathAndQuery: pathAndQuery))
            return RequestProof(timestamp: timestamp, signature: signature)
        } catch {
            throw ReceiptError(.signing, "signing the proof failed")
        }
    }

    /// Whether the signature verifies by `key` over `method` and `pathAndQuery` at this proof's time.
    public func verifies(key: ECPublicKey, method: String, pathAndQuery: String) -> Bool {
        let message = Self.message(timestamp: timestamp, method: method, pathAndQuery: pathAndQuery)
        if signature.count == 64, key.isValidSignature(signature, format: .raw, for: message) { return true }
        // A DER signature is 64 bytes long too, once in about 2^50.
        return signature.first == 0x30 && key.isValidSignature(signature, format: .der, for: message)
    }
}
