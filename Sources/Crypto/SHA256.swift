import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface.
public enum SHA256 {
    /// The digest length in bytes.
    public static let digestLength = 32

    /// Returns the 32-byte SHA-256 digest of `data`.
    ///
    /// Traps only if OpenSSL cannot compute SHA-256 at all (allocation failure or a broken OpenSSL
    /// installation); no input can cause that.
    public static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        if let digest = data.withContiguousStorageIfAvailable({ digest($0) }) { return digest }
        return Array(data).withUnsafeBufferPointer { digest($0) }
    }

    /// Returns the SHA-256 digest of the UTF-8 bytes of `string`.
    public static func hash(_ string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }

    private static func digest(_ buffer: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: digestLength)
        // EVP_DigestUpdate returns early for a zero count, so a nil base address for empty input is fine.
        let ok = output.withUnsafeMutableBufferPointer { out in
            EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, nil, FetchedDigest.sha256, nil)
        }
        guard ok == 1 else { openSSLInvariantFailure("SHA-256") }
        return output
    }
}

/// Stops the process when OpenSSL fails an operation that cannot fail for any input (only allocation failure
/// or a broken installation can cause it); continuing would return a wrong digest or MAC.
func openSSLInvariantFailure(_ operation: String) -> Never {
    preconditionFailure("OpenSSL could not compute \(operation): \(OpenSSL.drainErrors())")
}
