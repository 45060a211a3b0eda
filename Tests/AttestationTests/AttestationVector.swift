import Attestation
import Crypto
import Foundation
import Testing

/// One attestation vector file, read.
struct AttestationVector {
    let file: String
    let attestation: [UInt8]
    let keyId: [UInt8]
    let clientDataHash: [UInt8]
    let appId: String
    let environment: AttestationEnvironment
    let validAt: Int64
    let x962: [UInt8]
    let expectedFailures: [(condition: String, expected: String)]
    let json: [String: Any]

    init(_ file: String) throws {
        self.file = file
        json = try Fixtures.json(file)
        attestation = try Fixtures.base64(try #require(json["attestation"] as? String))
        keyId = try Fixtures.base64(try #require(json["keyId"] as? String))
        let hash = try #require(json["clientDataHash"] as? [String: Any])
        clientDataHash = try Fixtures.base64(try #require(hash["base64"] as? String))
        appId = try #require(json["appId"] as? String)
        let environmentName = try #require(json["environment"] as? String)
        environment = try #require(AttestationEnvironment(rawValue: environmentName))
        validAt = try Fixtures.unixTime(try #require(json["validAt"] as? String))
        let key = try #require(json["publicKey"] as? [String: Any])
        x962 = try Fixtures.hex(try #require(key["x962UncompressedHex"] as? String))
        let failures = try #require(json["expectedFailures"] as? [[String: String]])
        expectedFailures = failures.map { ($0["condition"] ?? "", $0["expected"] ?? "") }
    }

    /// clientDataHash re-derived from the challenge or client data as the vector's `derivation` says (it differs
    /// between sources: raw challenge bytes, SHA-256 of UTF-8 text, of raw UUID bytes, of base64-decoded bytes).
    func derivedClientDataHash() throws -> [UInt8] {
        let hash = try #require(json["clientDataHash"] as? [String: Any])
        let derivation = try #require(hash["derivation"] as? String)
        let challenge = json["challenge"] as? [String: Any]
        let challengeValue = challenge?["value"] as? String ?? ""
        let clientData = (json["clientData"] as? [String: Any])?["value"] as? String
        if derivation.hasPrefix("the raw challenge bytes, NOT hashed") {
            return Array(challengeValue.utf8)
        } else if derivation.hasPrefix("SHA-256(16 raw UUID bytes)") {
            return SHA256.hash(try Fixtures.hex(challengeValue.replacingOccurrences(of: "-", with: "")))
        } else if derivation.hasPrefix("SHA-256(clientData") {
            return SHA256.hash(try #require(clientData))
        } else if derivation.contains("warden delegates") {
            return SHA256.hash(try Fixtures.base64(challengeValue))
        } else if derivation.hasPrefix("SHA-256(challenge") {
            return SHA256.hash(challengeValue)
        }
        Issue.record("\(file): unknown derivation \(derivation)")
        return []
    }

    var request: AttestationRequest {
        AttestationRequest(attestation: attestation, keyId: keyId, clientDataHash: clientDataHash)
    }
}
