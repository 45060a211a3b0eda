import COpenSSL
import Synchronization

/// Owns one parsed OpenSSL public key (`EVP_PKEY`) and frees it when the last holder lets go, so that a key is
/// parsed once and verifies many times.
///
/// Verification only reads the key: OpenSSL 3 allows one `EVP_PKEY` to be used by several threads at once for
/// read-only operations when each operation has its own context. A key's second verification also keeps a copy of
/// its context, ready (`EVP_DigestVerifyInit` with SHA-256) and never used itself: later verifications copy it
/// (`EVP_MD_CTX_copy_ex`, which duplicates OpenSSL's ECDSA context) instead of asking OpenSSL's providers for the
/// ECDSA implementation again. Not the first: most keys verify once (a new phone's proof), and for them the copy kept
/// would be work for nothing.
final class PublicKeyHandle: @unchecked Sendable {
    // @unchecked Sendable: `pointer` is immutable, set once before the handle is shared, and only passed to OpenSSL
    // functions that read the key (each with a context of its own); the prepared context is published once (a
    // compare-and-exchange from `verifiedOnce`), then only read by `EVP_MD_CTX_copy_ex`; both are freed in `deinit`,
    // when nobody holds the handle.
    let pointer: OpaquePointer
    /// The prepared verification context's address; before there is one, ``neverVerified`` or ``verifiedOnce``.
    private let prepared = Atomic<UInt>(PublicKeyHandle.neverVerified)
    private static let neverVerified: UInt = 0
    private static let verifiedOnce: UInt = 1

    /// Takes ownership of `pointer` (freed with `EVP_PKEY_free` in `deinit`).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A new context ready to verify an ECDSA-with-SHA-256 signature by this key, which the caller frees
    /// (`EVP_MD_CTX_free`); nil when OpenSSL fails.
    func verifyContext() -> OpaquePointer? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        let address = prepared.load(ordering: .acquiring)
        if address > Self.verifiedOnce, let template = OpaquePointer(bitPattern: address), EVP_MD_CTX_copy_ex(context, template) == 1 {
            return context
        }
        guard EVP_DigestVerifyInit(context, nil, FetchedDigest.sha256, nil, pointer) == 1 else {
            EVP_MD_CTX_free(context)
            return nil
        }
        if address == Self.neverVerified {
            _ = prepared.compareExchange(expected: Self.neverVerified, desired: Self.verifiedOnce, ordering: .relaxed)
        } else if address == Self.verifiedOnce, let template = EVP_MD_CTX_new() {
            let published = EVP_MD_CTX_copy_ex(template, context) == 1
                && prepared.compareExchange(expected: Self.verifiedOnce, desired: UInt(bitPattern: template),
                                            ordering: .acquiringAndReleasing).exchanged
            if !published { EVP_MD_CTX_free(template) }
        }
        return context
    }

    deinit {
        let address = prepared.load(ordering: .acquiring)
        if address > Self.verifiedOnce, let template = OpaquePointer(bitPattern: address) { EVP_MD_CTX_free(template) }
        EVP_PKEY_free(pointer)
    }
}
