import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`, seeded by the kernel).
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// - Throws: ``CryptoError`` when `count` is negative or too large, or when OpenSSL's generator fails
    ///   (for example when it cannot be seeded).
    public static func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else {
            throw CryptoError(operation: "random bytes", reason: "count \(count) is out of range")
        }
        if count == 0 { return [] }
        var output = [UInt8](repeating: 0, count: count)
        let ok = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard ok == 1 else { throw CryptoError(openSSLOperation: "random bytes") }
        return output
    }
}
