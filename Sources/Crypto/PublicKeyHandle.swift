import COpenSSL

/// Owns one parsed OpenSSL public key (`EVP_PKEY`) and frees it when the last holder lets go, so that a key is
/// parsed once and verifies many times.
///
/// Verification only reads the key: OpenSSL 3 allows one `EVP_PKEY` to be used by several threads at once for
/// read-only operations when each operation has its own context (each verification makes its own `EVP_MD_CTX`).
final class PublicKeyHandle: @unchecked Sendable {
    // @unchecked Sendable: `pointer` is immutable, set once before the handle is shared, and only passed to OpenSSL
    // functions that read the key (each with a context of its own); it is freed in `deinit`, when nobody holds it.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (freed with `EVP_PKEY_free` in `deinit`).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}
