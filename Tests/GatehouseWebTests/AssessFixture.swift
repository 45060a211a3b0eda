import AttestationTesting
import Crypto
import Foundation
import GatehouseReceipts
import JSON
import Simulator
import Testing

/// What the assess tests send with: envelopes built by the simulator's `SignedEnvelope` (written from the contract,
/// not from the server), posted to `/api/v4/assess` of a `DeviceServer`.
enum AssessFixture {
    static let appId = "ABCDE12345.com.example.app"
    static let bundleId = "com.example.app"

    /// Now, unix milliseconds (the served `gatehouse` judges the window by the real clock).
    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// An iOS envelope for `apiKey` naming `bundleId` and `device`, bound to `receiptKey` when given.
    static func ios(_ apiKey: String, bundleId: String = bundleId, device: String = "device-1", receiptKey: ECPublicKey? = nil,
                    timestamp: Int64? = nil) throws -> SignedEnvelope {
        try SignedEnvelope(apiKey: apiKey, platform: "ios",
                           signed: SignedEnvelope.signedText(appID: bundleId, deviceID: device, receiptKey: receiptKey),
                           timestamp: timestamp ?? nowMillis)
    }

    /// The envelope's JSON with an App Attest assertion by `key` with `counter` over its canonical string.
    static func withAssertion(_ envelope: SignedEnvelope, key: SyntheticKey, counter: UInt32) throws -> JSON {
        envelope.json(attestation: SignedEnvelope.appAttest(keyID: key.keyId, assertion: try key.assertion(counter: counter, clientData: envelope.clientData)))
    }
}

extension DeviceServer {
    /// POSTs an assessment body.
    func assess(_ body: JSON) throws -> PlainHTTP.Response {
        try client.send("POST", "/api/v4/assess", headers: [("Content-Type", "application/json")], body: body.serialized())
    }

    /// POSTs raw bytes to `/api/v4/assess`.
    func assess(raw: [UInt8]) throws -> PlainHTTP.Response {
        try client.send("POST", "/api/v4/assess", headers: [("Content-Type", "application/json")], body: raw)
    }

    /// The served JWKS.
    func receiptKeys() throws -> JWKS {
        let response = try client.send("GET", "/api/v4/receipts/keys")
        #expect(response.status == 200, "\(response.text)")
        return try JWKS(bytes: response.body)
    }

    /// A registered App Attest key for `appId` in the environment of `publicKey`.
    func registeredKey(appId: String = AssessFixture.appId, publicKey: String) throws -> SyntheticKey {
        let (key, response) = try attestAndRegister(appId: appId, publicKey: publicKey)
        #expect(response.verdict == "verified", "\(response.text)")
        return key
    }
}

extension PlainHTTP.Response {
    /// The attestation's status and reasons ("none" without one), e.g. "rejected requestStale".
    var assessed: String {
        guard status == 200, let json else { return "no assessment (\(status): \(text))" }
        guard let attestation = json["attestation"], !attestation.isNull else { return "none" }
        let reasons = attestation["reasons"]?.array?.compactMap(\.string) ?? []
        return ([attestation["status"]?.string ?? "?"] + reasons).joined(separator: " ")
    }

    /// The tampering reasons.
    var tampering: [String] { json?["tampering"]?["reasons"]?.array?.compactMap(\.string) ?? [] }

    /// The JSON pointers of a problem's errors.
    var pointers: [String] { json?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? [] }
}
