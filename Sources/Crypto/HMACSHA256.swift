import COpenSSL

/// HMAC with SHA-256 (RFC 2104, test vectors in RFC 4231).
public enum HMACSHA256 {
    /// The MAC length in bytes.
    public static let macLength = 32

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key` (any length; keys longer than 64 bytes are hashed
    /// first, as RFC 2104 says). Compare MACs with ``constantTimeEquals(_:_:)``.
    ///
    /// Traps only if OpenSSL cannot compute HMAC-SHA256 at all (allocation failure or a broken installation).
    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        // A key longer than the block size is replaced by its hash (RFC 2104 §2); doing it here keeps the
        // length within OpenSSL's `int` for absurdly long keys.
        let key = key.count > 64 ? SHA256.hash(key) : key
        var output = [UInt8](repeating: 0, count: macLength)
        let computed = OpenSSL.withBytes(key) { keyPointer, keyCount in
            OpenSSL.withBytes(message) { messagePointer, messageCount in
                output.withUnsafeMutableBufferPointer { out in
                    PreparedHMAC.shared.compute(key: keyPointer, keyCount, message: messagePointer, messageCount, into: out)
                }
            }
        }
        guard computed else { openSSLInvariantFailure("HMAC-SHA256") }
        return output
    }
}

/// HMAC-SHA256 as OpenSSL 3 computes it without a provider lookup per MAC: the HMAC implementation fetched once, in a
/// context with SHA-256 set (never keyed or used itself), which each MAC duplicates (`EVP_MAC_CTX_dup`) and keys.
/// (The one-shot `HMAC()` fetches HMAC and SHA-256 by name on every call.)
private final class PreparedHMAC: @unchecked Sendable {
    // @unchecked Sendable: `prepared` is set once in init and then only read by `EVP_MAC_CTX_dup` (which copies it
    // without changing it), from any thread; it lives as long as the process (`shared`).
    private let prepared: OpaquePointer?

    static let shared = PreparedHMAC()

    private init() {
        var context: OpaquePointer?
        if let mac = EVP_MAC_fetch(nil, "HMAC", nil) {
            context = EVP_MAC_CTX_new(mac)
            EVP_MAC_free(mac)  // the context holds its own reference
        }
        if let made = context {
            let ready = OSSL_MAC_PARAM_DIGEST.withCString { name in
                "SHA256".withCString { digest in
                    var parameters = [OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                                      OSSL_PARAM_construct_end()]
                    return EVP_MAC_CTX_set_params(made, &parameters) == 1
                }
            }
            if !ready {
                EVP_MAC_CTX_free(made)
                context = nil
            }
        }
        prepared = context
    }

    /// The MAC of the message under the key into `out` (32 bytes); false when OpenSSL fails (no HMAC or SHA-256 at all,
    /// or no memory).
    func compute(key: UnsafePointer<UInt8>, _ keyCount: Int, message: UnsafePointer<UInt8>, _ messageCount: Int,
                 into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        guard let prepared, let context = EVP_MAC_CTX_dup(prepared) else { return false }
        defer { EVP_MAC_CTX_free(context) }
        var length = 0
        return EVP_MAC_init(context, key, keyCount, nil) == 1 && EVP_MAC_update(context, message, messageCount) == 1
            && EVP_MAC_final(context, out.baseAddress, &length, out.count) == 1 && length == HMACSHA256.macLength
    }
}
