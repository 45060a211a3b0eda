import COpenSSL

/// Compares two byte strings in time that depends only on their length (`CRYPTO_memcmp`), for MACs, tokens
/// and password hashes.
///
/// Returns false when the lengths differ; the length itself is not secret here and may leak through timing.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { left in
        b.withUnsafeBytes { right in
            CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
        }
    }
}
