import COpenSSL

/// Owns one parsed OpenSSL certificate (`X509`) and frees it when the last holder lets go, so that a certificate is
/// parsed once (its public key decoded once with it) and read, and checked as an issuer, many times.
///
/// Checks only read it: OpenSSL 3 allows one `X509` to be read by several threads at once (what it caches lazily, it
/// caches under its own lock).
final class X509Handle: @unchecked Sendable {
    // @unchecked Sendable: `pointer` is immutable, set once before the handle is shared, and only passed to OpenSSL
    // functions that read the certificate; it is freed in `deinit`, when nobody holds it.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (freed with `X509_free` in `deinit`).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }
}
