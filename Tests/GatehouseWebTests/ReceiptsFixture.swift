import Crypto
import Foundation
import GatehouseReceipts
import GatehouseTesting
import HTTP
import JSON
import Simulator
import Testing

/// A test Gatehouse served on a loopback socket with two environments (their secret keys at hand), a phone key, and
/// helpers to issue receipts, sign proofs and call the receipt endpoints.
final class ReceiptsFixture {
    let app: TestApp
    let server: LoopbackServer
    let client: PlainHTTP
    let environmentID: String
    let secret: String
    /// The environment's public key (`pk_…`), for assessments.
    let publicKey: String
    let otherEnvironmentID: String
    let otherSecret: String
    let phone: ECPrivateKey

    init() throws {
        let app = try TestApp()
        self.app = app
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        func environment(_ name: String) throws -> (String, String, String) {
            let created = app.send("POST", "/api/management/v1/environments", json: ["name": .string(name), "kind": "production"],
                                   headers: auth).json
            let id = try #require(created?["id"]?.string)
            let secret = try #require(created?["keys"]?.array?.compactMap { $0["secret"]?.string }.first)
            let publicKey = try #require(created?["keys"]?.array?.first { $0["type"] == "public" }?["value"]?.string)
            return (id, secret, publicKey)
        }
        (environmentID, secret, publicKey) = try environment("Receipts")
        (otherEnvironmentID, otherSecret, _) = try environment("Other")
        phone = try ECPrivateKey.generate()
        server = try LoopbackServer(app)
        client = PlainHTTP(loopbackPort: server.port)
    }

    /// Now on the test clock, in unix milliseconds.
    var nowMilliseconds: Int64 { app.clock.now * 1000 }

    /// A receipt from the server's issuer, bound to the phone key unless `bound` is false.
    func issue(bound: Bool = true, environment: String? = nil, action: ReceiptAction = .allow,
               attestation: ReceiptAttestation? = ReceiptAttestation(provider: "play-integrity", status: "verified")) throws -> String {
        try app.application.domain.receipts.issue(
            environmentID: environment ?? environmentID, requestID: "req_\(UUID().uuidString.prefix(8))", platform: "android", action: action,
            attestation: attestation,
            receiptKey: bound ? phone.publicKey.derSubjectPublicKeyInfo : nil)
    }

    /// A proof header by the phone key, signed `age` milliseconds ago.
    func proof(_ method: String = "GET", _ path: String = "/api/orders?page=2", age: Int64 = 1000) throws -> String {
        try RequestProof.sign(method: method, pathAndQuery: path, timestamp: nowMilliseconds - age, key: phone).header
    }

    /// GET /api/v4/receipts/keys, read as a JWKS.
    func keys() throws -> JWKS {
        let response = try client.send("GET", "/api/v4/receipts/keys")
        #expect(response.status == 200, "\(response.text)")
        return try JWKS(bytes: response.body)
    }

    /// POST /api/v4/receipts/verify with `body` and the secret key `secret` (this environment's by default).
    func verify(_ body: JSON, secret: String? = nil) throws -> PlainHTTP.Response {
        try client.send("POST", "/api/v4/receipts/verify",
                        headers: [("Authorization", "Bearer " + (secret ?? self.secret)), ("Content-Type", "application/json")],
                        body: body.serialized())
    }

    /// Verifies `token` for `GET /api/orders?page=2` with `proof`; returns the answer's JSON.
    func verify(_ token: String, proof: String?, method: String = "GET", path: String = "/api/orders?page=2", secret: String? = nil) throws -> JSON {
        let response = try verify(["token": .string(token), "method": .string(method), "pathAndQuery": .string(path), "proof": .optional(proof)],
                                  secret: secret)
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json)
    }
}

extension JSON {
    /// The `reasons` of a verify answer, as strings.
    var reasons: [String] { self["reasons"]?.array?.compactMap(\.string) ?? ["(no reasons)"] }
}
