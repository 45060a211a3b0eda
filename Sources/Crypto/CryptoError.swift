import COpenSSL

/// A cryptographic operation that failed: which one, and OpenSSL's (or libargon2's) reason.
///
/// The message names the operation and the library's error text only; it never carries key material,
/// plaintext, passwords or nonces, so it is safe to log.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    /// The operation that failed, e.g. "AES-256-GCM open" or "parse public key".
    public let operation: String
    /// Why it failed, from the library's error queue or from our own checks.
    public let reason: String

    /// Creates an error for `operation` with an explicit `reason`.
    public init(operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// Creates an error for `operation` with the reason drained from this thread's OpenSSL error queue.
    init(openSSLOperation operation: String) {
        self.init(operation: operation, reason: OpenSSL.drainErrors())
    }

    /// "operation failed: reason".
    public var description: String { "\(operation) failed: \(reason)" }
}
