import Crypto
import Foundation
import GatehouseWeb
import JSON
import Testing

/// Bad input to the device endpoints over a real socket: every kind gets a verdict or a 4xx, never a 5xx; and the
/// token buckets answer 429 with Retry-After.
@Suite("Device API bad input and limits", .serialized, .needsSyntheticCA)
struct DeviceBadInputTests {
    @Test func badInputGetsAVerdictOrA4xxNeverA500() throws {
        let server = try DeviceServer()
        let (_, publicKey) = try server.environment(kind: "production", appIds: ["ABCDE12345.com.example.app"])
        let key = JSON.string(publicKey)
        let thirtyTwo = JSON.string(Base64.encode([UInt8](repeating: 7, count: 32)))
        let challenge = JSON.string(try server.challenge(publicKey))

        // Cannot be judged: 400 naming each field by pointer.
        let malformed = try server.post("/app-attest", ["apiKey": key, "keyId": "not base64!", "challenge": 42, "attestation": .array([])])
        #expect(malformed.status == 400)
        #expect(malformed.header("Content-Type") == "application/problem+json")
        let pointers = Set(malformed.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? [])
        #expect(pointers == ["/keyId", "/challenge", "/attestation"])
        #expect(try server.post("/app-attest", ["apiKey": key, "keyId": .string(Base64.encode([1, 2, 3])), "challenge": challenge, "attestation": "AAAA"]).status == 400)
        #expect(try server.post("/challenge", [:]).status == 400)
        #expect(try server.post("/challenge", ["apiKey": 12]).status == 400)
        #expect(try server.post("/challenge", raw: Array("[1, 2]".utf8)).status == 400)
        #expect(try server.post("/challenge", raw: Array("{\"apiKey\": ".utf8)).status == 400)
        #expect(try server.post("/app-attest/assertion", ["apiKey": key, "keyId": thirtyTwo, "clientData": "%%%", "assertion": .null]).status == 400)
        #expect(try server.client.send("POST", "/api/v4/attestation/challenge", headers: [("Content-Type", "text/plain")], body: Array("{}".utf8)).status == 415)

        // Who: unknown, or not a public key.
        #expect(try server.post("/challenge", ["apiKey": "pk_live_nothing"]).status == 401)
        #expect(try server.post("/challenge", ["apiKey": "sk_live_secret"]).status == 401)

        // Too large: 413.
        let huge = Array("{\"apiKey\": \"\(publicKey)\", \"pad\": \"".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 70_000) + Array("\"}".utf8)
        #expect(try server.post("/challenge", raw: huge).status == 413)

        // Well-formed but hostile bytes: judged.
        let cborBombs: [[UInt8]] = [
            [],                                                         // empty
            Array("not cbor at all".utf8),
            [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],     // an array claiming 2^64-1 items
            [0xBA, 0xFF, 0xFF, 0xFF, 0xFF],                             // a map claiming 2^32-1 pairs
            [UInt8](repeating: 0x81, count: 10_000) + [0x00],           // 10,000 nested arrays
            [UInt8](repeating: 0x9F, count: 5_000),                     // indefinite arrays never closed
            [0x5B, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00],     // a byte string claiming 64 GiB
            [0xA1, 0x63] + Array("fmt".utf8) + [0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // fmt of the wrong type
        ]
        for bytes in cborBombs {
            let registration = try server.post("/app-attest", ["apiKey": key, "keyId": thirtyTwo, "challenge": challenge,
                                                               "attestation": .string(Base64.encode(bytes.isEmpty ? [0xF6] : bytes))])
            #expect(registration.status == 200, "\(bytes.prefix(12)): \(registration.text)")
            #expect(registration.verdict.hasPrefix("forged attestationInvalid") || registration.verdict.hasPrefix("rejected challengeInvalid"),
                    "\(bytes.prefix(12)): \(registration.verdict)")
            let assertion = try server.post("/app-attest/assertion", ["apiKey": key, "keyId": thirtyTwo, "clientData": "AA==",
                                                                      "assertion": .string(Base64.encode(bytes.isEmpty ? [0xF6] : bytes))])
            #expect(assertion.status == 200)
            #expect(assertion.verdict == "forged unknownKeyId")
        }
        // Unicode and control characters in a challenge: judged, not echoed into trouble.
        let odd = try server.post("/app-attest", ["apiKey": key, "keyId": thirtyTwo, "challenge": "\u{1}\u{202E}é", "attestation": "oA=="])
        #expect(odd.status == 200)
        #expect(odd.verdict.contains("challengeInvalid"))
        // U+0000, which PostgreSQL cannot store (and libpq would cut a text at), is refused by pointer on every engine.
        let nul = try server.post("/app-attest", ["apiKey": key, "keyId": thirtyTwo, "challenge": "\u{0}x", "attestation": "oA=="])
        #expect(nul.status == 400)
        #expect(nul.json?["errors"]?.array?.first?["pointer"]?.string == "/challenge", "\(nul.text)")
        #expect(!server.log.contains("\"status\":500"))
    }

    @Test func perAddressAndPerKeyBucketsAnswer429WithRetryAfter() throws {
        // One request per 100 s, bursts of one: no stall of a loaded machine refills a bucket during the test.
        let server = try DeviceServer(["--device-rate-per-address", "0.01"])
        let (_, publicKey) = try server.environment(kind: "production", appIds: [])
        let statuses = try (0..<4).map { _ in try server.post("/challenge", ["apiKey": .string(publicKey)]) }
        #expect(statuses.map(\.status) == [201, 429, 429, 429])
        let refused = try #require(statuses.last)
        #expect(refused.status == 429)
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(refused.header("Content-Type") == "application/problem+json")

        let keyed = try DeviceServer(["--device-rate-per-address", "0", "--device-rate-per-key", "0.01"])
        let (_, limited) = try keyed.environment(kind: "production", appIds: [])
        let (_, other) = try keyed.environment(kind: "production", appIds: [])
        let perKey = try (0..<3).map { _ in try keyed.post("/challenge", ["apiKey": .string(limited)]).status }
        #expect(perKey == [201, 429, 429])
        #expect(try keyed.post("/challenge", ["apiKey": .string(other)]).status == 201, "another key has its own bucket")
    }
}
