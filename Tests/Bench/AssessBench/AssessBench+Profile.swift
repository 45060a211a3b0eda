import AttestationTesting
import Crypto
import Foundation
import GatehouseReceipts
import JSON

extension AssessBench {
    /// `AssessBench profile N`: what the pieces of an assessment and a receipt verification cost in this process, one
    /// thread, N times each (microseconds per call), to see where a request's time goes.
    static func profile(count: Int) throws {
        let phone = try ECPrivateKey.generate()
        let message = Array("gatehouse-v2\nios\n1700000000000\nnonce\nsigned:abc".utf8)
        let der = try phone.signature(for: message)
        let raw = try phone.signature(for: message, format: .raw)
        let signing = try ECSigningKey(phone)
        let verifying = phone.publicKey
        let x962 = phone.publicKey.x962
        let spki = phone.publicKey.derSubjectPublicKeyInfo
        func time(_ label: String, _ body: () throws -> Void) rethrows {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count { try body() }
            let micros = Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 / Double(count)
            print(String(format: "%-52@ %8.1f µs", label as NSString, micros))
        }
        try time("ECPublicKey(x962:) (parse)") { _ = try ECPublicKey(x962: x962) }
        try time("ECPublicKey(derSubjectPublicKeyInfo:) (parse)") { _ = try ECPublicKey(derSubjectPublicKeyInfo: spki) }
        time("ECPublicKey.isValidSignature (parse + verify)") { _ = phone.publicKey.isValidSignature(der, format: .der, for: message) }
        time("ECPublicKey.isValidSignature (verify, key parsed once)") { _ = verifying.isValidSignature(der, format: .der, for: message) }
        try time("ECPrivateKey.signature (parse + sign)") { _ = try phone.signature(for: message, format: .raw) }
        try time("ECSigningKey.signature (sign)") { _ = try signing.signature(for: message, format: .raw) }
        time("SHA-256 of 1 KiB") { _ = SHA256.hash([UInt8](repeating: 1, count: 1024)) }
        let tokenText = Base64.encode(try SecureRandom.bytes(1200), alphabet: .urlSafe, padded: false)
        let body: JSON = [
            "apiKey": "pk_test_0123456789abcdef0123456789abcdef",
            "signed": .string(#"{"platform":"ios","timestamp":1700000000000,"nonce":"abcdefghijklmnopqrstuv","appId":"TEAM.app"}"#),
            "attestation": ["keyId": .string(String(tokenText.prefix(43))), "assertion": .string(tokenText)],
        ]
        let bodyBytes = body.serialized()
        try time("JSON parse of a 2 KiB request body") { _ = try JSONParser.parse(bodyBytes) }
        let tokenBytes = Array(tokenText.utf8)
        time("base64url decode of 1,600 characters") { _ = Base64.decodeURLSafeUnpadded(tokenBytes) }
        time("HMAC-SHA256 of 100 bytes") { _ = HMACSHA256.authenticate(Array(message.prefix(100)), key: Array("pk_live_x".utf8)) }

        let signer = ReceiptSigner(privateKey: phone, kid: "k")
        let claims = ReceiptClaims(environment: "env_x", subject: "req_x", issuedAt: Int64(Date().timeIntervalSince1970), platform: "ios", action: .allow,
                                   attestation: ReceiptAttestation(provider: "app-attest", status: "verified"),
                                   confirmationKey: PublicJWK(publicKey: phone.publicKey))
        let token = try signer.sign(claims)
        try time("ReceiptSigner.sign (bound)") { _ = try signer.sign(claims) }
        let verifier = ReceiptVerifier(keys: JWKS(keys: [signer.publicJWK]), environment: "env_x")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let proof = try RequestProof.sign(method: "GET", pathAndQuery: "/a", timestamp: now, key: phone).header
        time("ReceiptVerifier.verify (bound, with proof)") { _ = verifier.verify(token, method: "GET", pathAndQuery: "/a", proof: proof, nowMilliseconds: now) }
        _ = raw
    }
}
