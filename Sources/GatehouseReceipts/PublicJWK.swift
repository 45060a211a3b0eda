import Crypto
import JSON

/// A P-256 public key as a JSON Web Key (RFC 7517, RFC 7518 §6.2: `kty` EC, `crv` P-256, `x`, `y`): the receipt
/// signing keys of a JWKS (with `kid`, `use` sig, `alg` ES256) and the phone's key in a receipt's `cnf.jwk`.
public struct PublicJWK: Sendable, Equatable, Hashable {
    /// The key id, for keys of a JWKS; nil in `cnf.jwk`.
    public let kid: String?
    /// The key, for verifying signatures (its point checked on P-256 when read).
    public let publicKey: ECPublicKey

    /// The affine x coordinate, 32 big-endian bytes.
    public var x: [UInt8] { Array(publicKey.x962[1..<33]) }
    /// The affine y coordinate, 32 big-endian bytes.
    public var y: [UInt8] { Array(publicKey.x962[33..<65]) }

    /// The JWK of `publicKey`, with `kid` when it names a signing key.
    public init(publicKey: ECPublicKey, kid: String? = nil) {
        self.kid = kid
        self.publicKey = publicKey
    }

    /// Keys are equal when their ids and points are.
    public static func == (a: PublicJWK, b: PublicJWK) -> Bool {
        a.kid == b.kid && a.publicKey.x962 == b.publicKey.x962
    }

    /// Hashes the id and the point.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kid)
        hasher.combine(publicKey.x962)
    }

    /// Reads a JWK object. Members other than `kty`, `crv`, `x`, `y`, `kid`, `use`, `alg` are ignored
    /// (RFC 7517 §4), save `d`: private key material is refused.
    ///
    /// - Throws: ``ReceiptError`` (`.key`) when it is not an EC P-256 public key whose point lies on the curve, or
    ///   `use`/`alg` say it is for something else.
    public init(json: JSON) throws(ReceiptError) {
        let object = try StrictObject(json, kind: .key, what: "a JWK")
        guard object["kty"]?.string == "EC", object["crv"]?.string == "P-256" else {
            throw ReceiptError(.key, "a JWK must be kty EC, crv P-256")
        }
        guard !object.has("d") else { throw ReceiptError(.key, "a JWK here must not hold private key material (d)") }
        guard let x = object["x"]?.string.flatMap(Base64URL.decode), x.count == 32,
              let y = object["y"]?.string.flatMap(Base64URL.decode), y.count == 32 else {
            throw ReceiptError(.key, "a JWK needs x and y as base64url of 32 bytes each")
        }
        if let use = object["use"], use.string != "sig" { throw ReceiptError(.key, "a JWK's use must be sig") }
        if let alg = object["alg"], alg.string != "ES256" { throw ReceiptError(.key, "a JWK's alg must be ES256") }
        if let kid = object["kid"] {
            guard let text = kid.string, !text.isEmpty, text.utf8.count <= 128 else {
                throw ReceiptError(.key, "a JWK's kid must be a string of 1 to 128 bytes")
            }
            self.kid = text
        } else {
            kid = nil
        }
        guard let key = try? ECPublicKey(x962: [0x04] + x + y) else { throw ReceiptError(.key, "a JWK's point is not on P-256") }
        publicKey = key
    }

    /// The JWK as JSON: `{"kty","crv","x","y"}`, plus `kid`, `use` and `alg` when it has a `kid` (a signing key).
    public var json: JSON {
        var members: [JSON.Member] = [
            .init("kty", "EC"), .init("crv", "P-256"), .init("x", .string(Base64URL.encode(x))), .init("y", .string(Base64URL.encode(y))),
        ]
        if let kid {
            members += [.init("kid", .string(kid)), .init("use", "sig"), .init("alg", "ES256")]
        }
        return .object(members)
    }

    /// The RFC 7638 thumbprint: base64url of SHA-256 over `{"crv","kty","x","y"}` in that order, without whitespace.
    /// Gatehouse uses it as the `kid` of its signing keys.
    public var thumbprint: String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(x) + #"","y":""# + Base64URL.encode(y) + #""}"#
        return Base64URL.encode(SHA256.hash(Array(canonical.utf8)))
    }
}
