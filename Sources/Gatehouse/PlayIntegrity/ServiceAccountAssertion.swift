import Crypto
import JSON

/// The signed JWT a service account presents to Google's token endpoint in the JWT-bearer grant (RFC 7523 §2.1),
/// and the form that carries it.
enum ServiceAccountAssertion {
    /// The OAuth scope of the Play Integrity API.
    static let scope = "https://www.googleapis.com/auth/playintegrity"
    /// How long an assertion is valid (Google accepts at most one hour).
    static let lifetime: Int64 = 3600
    /// RFC 7523 §2.1's grant type.
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The JWS compact serialization, RS256 with the key's `private_key`: header `{alg, typ, kid: private_key_id}`,
    /// claims `{iss: client_email, scope, aud: token_uri, iat, exp: iat + 3600}`.
    ///
    /// - Throws: ``GoogleDecodeError/serviceAccountRejected(_:)`` when the key lacks a field or its private key
    ///   cannot sign (the message never quotes the key).
    static func make(for key: ServiceAccountKey, issuedAt now: Int64) throws(GoogleDecodeError) -> String {
        guard let tokenURI = key.document["token_uri"]?.string else {
            throw .serviceAccountRejected("the service account key has no token_uri")
        }
        guard let pem = key.document["private_key"]?.string, let privateKey = try? RSAPrivateKey(pem: pem) else {
            throw .serviceAccountRejected("the service account's private_key is not an RSA key of 2048 bits or more")
        }
        var header: [JSON.Member] = [JSON.Member("alg", "RS256"), JSON.Member("typ", "JWT")]
        if let keyID = key.document["private_key_id"]?.string { header.append(JSON.Member("kid", .string(keyID))) }
        let claims: JSON = [
            "iss": .string(key.clientEmail), "scope": .string(scope), "aud": .string(tokenURI),
            "iat": .int(now), "exp": .int(now + lifetime),
        ]
        let signingInput = encode(JSON.object(header).serialized()) + "." + encode(claims.serialized())
        guard let signature = try? privateKey.rs256Signature(for: Array(signingInput.utf8)) else {
            throw .serviceAccountRejected("the service account's private key could not sign")
        }
        return signingInput + "." + encode(signature)
    }

    /// The `application/x-www-form-urlencoded` body of the token request (RFC 7523 §2.1).
    static func formBody(assertion: String) -> [UInt8] {
        Array(("grant_type=" + formEncode(grantType) + "&assertion=" + formEncode(assertion)).utf8)
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes, alphabet: .urlSafe, padded: false)
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986 §2.3).
    private static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
