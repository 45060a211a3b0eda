import Crypto
import JSON

/// The token of Apple's receipt refresh, made like an APNs provider token: ES256, header `kid` the DeviceCheck key
/// id, claims `iss` the team id and `iat`; sent as `Authorization: <JWT>` (no `Bearer`).
struct DeviceCheckJWT: Sendable {
    let id: DeviceCheckKeyID
    let key: ECPrivateKey

    /// A token issued at `now`.
    /// - Throws: `CryptoError` when signing fails.
    func token(now: Int64) throws -> String {
        let header = JSON.object([.init("alg", .string("ES256")), .init("kid", .string(id.keyID))]).serialized()
        let claims = JSON.object([.init("iss", .string(id.teamID)), .init("iat", .int(now))]).serialized()
        let input = Base64.encode(header, alphabet: .urlSafe, padded: false) + "." + Base64.encode(claims, alphabet: .urlSafe, padded: false)
        let signature = try key.rawSignature(for: Array(input.utf8))
        return input + "." + Base64.encode(signature, alphabet: .urlSafe, padded: false)
    }
}
