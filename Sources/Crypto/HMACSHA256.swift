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
        var length: UInt32 = 0
        let result = OpenSSL.withBytes(key) { keyPointer, keyCount in
            OpenSSL.withBytes(message) { messagePointer, messageCount in
                output.withUnsafeMutableBufferPointer { out in
                    HMAC(FetchedDigest.sha256, keyPointer, Int32(keyCount), messagePointer, messageCount,
                         out.baseAddress, &length)
                }
            }
        }
        guard result != nil, length == UInt32(macLength) else {
            openSSLInvariantFailure("HMAC-SHA256")
        }
        return output
    }
}
