import Attestation
import AttestationTesting
import Crypto
import Foundation
import Gatehouse
import JSON

extension PIBench {
    /// `PIBench profile COUNT`: the cost of each stage of a local judgement, in process, one thread (microseconds per
    /// token): decrypt, verify, the key parse alone, judging.
    static func profile(count: Int) throws {
        let minter = try PlayIntegrityMinter.random()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let template = PlayIntegrityPayloadTemplate(packageName: packageName, certificateDigest: [UInt8](repeating: 1, count: 32),
                                                    requestHash: requestHash, timestampMillis: now)
        let tokens = try (0..<count).map { _ in Array(try minter.token(template.json).utf8) }
        let decoder = PlayIntegrityDecoder(keys: try minter.keys())
        func time(_ label: String, _ body: () throws -> Void) rethrows {
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
            print("\(label): \(String(format: "%.1f", micros / Double(count))) µs per token")
        }
        var plaintexts: [[UInt8]] = []
        try time("decrypt (unwrap + AES-GCM)") { plaintexts = try tokens.map { try decoder.decrypt($0) } }
        try time("verify (ES256 + JSON)") { for p in plaintexts { _ = try decoder.verify(p) } }
        let spki = minter.signingKey.publicKey.derSubjectPublicKeyInfo
        try time("parse the public key (SPKI)") { for _ in 0..<count { _ = try ECPublicKey(derSubjectPublicKeyInfo: spki) } }
        let signature = try minter.signingKey.signature(for: Array("message".utf8), format: .raw)
        time("isValidSignature alone") { for _ in 0..<count { _ = minter.signingKey.publicKey.isValidSignature(signature, format: .raw, for: Array("message".utf8)) } }
        let verifier = minter.signingKey.publicKey
        time("ECPublicKey.isValidSignature (parsed once)") { for _ in 0..<count { _ = verifier.isValidSignature(signature, format: .raw, for: Array("message".utf8)) } }
        let payloads = try plaintexts.map { try decoder.verify($0) }
        let registration = PlayIntegrityRegistration(apps: [AndroidAppRegistration(packageName: packageName, certificateDigests: [[UInt8](repeating: 1, count: 32)])])
        time("evaluate") {
            for p in payloads {
                _ = PlayIntegrityEvaluator().evaluate(payload: p, registration: registration,
                                                      request: PlayIntegrityRequest(packageName: packageName, requestHash: requestHash), now: now, seenBefore: false)
            }
        }
    }
}
