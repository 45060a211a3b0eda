import COpenSSL

/// SHA-256 fetched from OpenSSL's providers once per process. OpenSSL 3 looks an implementation up by name (a lock and
/// a table walk) every time the legacy `EVP_sha256()` is passed to a digest, MAC or signature call; a fetched one is
/// used as it is. Every hash, HMAC and ECDSA verify on a request path goes through it.
final class FetchedDigest: @unchecked Sendable {  // set once in init, then only read; OpenSSL's EVP_MD is immutable and shareable
    private let fetched: OpaquePointer?

    private init() {
        fetched = EVP_MD_fetch(nil, "SHA256", nil)
    }

    private static let sha256Digest = FetchedDigest()

    /// The fetched SHA-256 (the legacy one if the fetch failed, which then fetches per call as before).
    static var sha256: OpaquePointer { sha256Digest.fetched ?? EVP_sha256() }
}
