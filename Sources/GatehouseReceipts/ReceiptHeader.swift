import JSON

/// The protected header every receipt carries (RFC 7515 §4.1): `{"alg":"ES256","kid":…,"typ":"gatehouse-receipt+jwt"}`.
enum ReceiptHeader {
    /// The only algorithm receipts are signed with.
    static let algorithm = "ES256"
    /// The media type of a receipt (RFC 8725 §3.11: explicit typing).
    static let type = "gatehouse-receipt+jwt"

    /// The header's JSON text for `kid`, in a fixed member order.
    static func text(kid: String) -> [UInt8] {
        var out = Array(#"{"alg":"ES256","kid":"#.utf8)
        JSON.writeString(kid, into: &out)
        out += Array(#","typ":"gatehouse-receipt+jwt"}"#.utf8)
        return out
    }

    /// Reads a header strictly and returns its `kid`.
    ///
    /// - Throws: ``ReceiptHeader/Failure``: `.malformed` when it is not a JSON object with a string `kid`, or names
    ///   `crit` (no extension is understood, RFC 7515 §4.1.11), or `typ` is not ours; `.algorithm` when `alg` is
    ///   anything but ES256 (`none`, `HS256`…).
    static func kid(of bytes: [UInt8]) throws(Failure) -> String {
        let object: StrictObject
        do {
            object = try StrictObject(bytes: bytes, kind: .token, what: "the receipt's header")
        } catch {
            throw .malformed
        }
        guard object["alg"]?.string == algorithm else { throw .algorithm }
        guard object["typ"]?.string == type, !object.has("crit") else { throw .malformed }
        guard let kid = object["kid"]?.string, !kid.isEmpty, kid.utf8.count <= 128 else { throw .malformed }
        return kid
    }

    /// Why a header is refused.
    enum Failure: Error {
        case malformed
        case algorithm
    }
}
