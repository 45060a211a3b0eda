import Crypto
import Foundation
import HTTP

/// Answers that clients keep and revalidate (RFC 9110 §8.8.3, §13.1.2): a strong `ETag` taken from the body's
/// SHA-256, `Cache-Control`, and `304` without a body when `If-None-Match` names the tag.
enum ConditionalGet {
    /// The strong entity tag of `body`: 128 bits of its SHA-256, base64url, quoted.
    static func etag(of body: [UInt8]) -> String {
        "\"" + Base64.encode(Array(SHA256.hash(body).prefix(16)), alphabet: .urlSafe, padded: false) + "\""
    }

    /// `body` as `contentType` with its tag and `cacheControl`, or `304` when `request` already holds it.
    static func response(to request: Request, body: [UInt8], contentType: String, cacheControl: String) -> Response {
        let etag = etag(of: body)
        var headers: Headers = ["Cache-Control": cacheControl, "ETag": etag]
        if let match = request.headers["If-None-Match"], matches(match, etag) {
            return Response(status: 304, headers: headers)
        }
        headers.set("Content-Type", contentType)
        return Response(status: 200, headers: headers, body: body)
    }

    /// Whether an `If-None-Match` value names `etag` (weak comparison, or `*`).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
