import ChildProcess
import Foundation
import HTTPClient
import TestSupport

/// A running `Tests/EndToEnd/fake_apple.py`: Apple's App Attest receipt refresh (`/v1/attestationData`) over TLS on a
/// free loopback port, with ``TLSMaterial``'s certificate, signing new receipts with the given receipt signer.
/// Stopped when released.
public final class FakeApple: @unchecked Sendable {
    // @unchecked Sendable: the process handle is only touched in init and deinit.
    private let process: ChildProcess
    /// `https://127.0.0.1:<port>` (what `--app-attest-data-endpoint` takes).
    public let baseURL: String
    /// The CA file that makes clients trust it (`--outbound-ca-file`).
    public let caFile: String

    /// Starts a fake signing with `signerPEM`/`signerKeyPEM`, carrying `chainPEM`.
    public init(signerPEM: String, signerKeyPEM: String, chainPEM: String) throws {
        let material = try TLSMaterial.shared()
        let files = material.directory + "/apple-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        try signerPEM.write(toFile: files + "/signer.pem", atomically: true, encoding: .utf8)
        try signerKeyPEM.write(toFile: files + "/signer.key", atomically: true, encoding: .utf8)
        try chainPEM.write(toFile: files + "/chain.pem", atomically: true, encoding: .utf8)
        process = try ChildProcess("/usr/bin/python3", ["-u", repositoryRoot + "/Tests/EndToEnd/fake_apple.py", material.serverCertificate,
                                                        material.serverKey, files + "/signer.pem", files + "/signer.key", files + "/chain.pem"],
                                   standardErrorPath: files + "/fake.err")
        guard let line = process.readLine(timeout: 30), let port = Int(line) else {
            throw FakeGoogleError(description: "the fake Apple did not start: \(process.standardError)")
        }
        baseURL = "https://127.0.0.1:\(port)"
        caFile = material.caFile
    }

    deinit {
        process.kill(SIGKILL)
    }

    /// Tells the fake which DeviceCheck key to accept (its public key as PEM), and optionally its clock.
    public func configure(keyID: String, teamID: String, publicKeyPEM: String, now: Int64? = nil) throws {
        var body: [String: Any] = ["keyId": keyID, "teamId": teamID, "publicKey": publicKeyPEM]
        if let now { body["now"] = now }
        try post("/_configure", body)
    }

    /// Queues answers, in order: `["status": 200, "riskMetric": 7]`, `["status": 304]`… (200 with metric 1 when empty).
    public func answer(_ answers: [[String: Any]]) throws {
        try post("/_answers", ["answers": answers])
    }

    /// The refresh calls received so far (`path` `/v1/attestationData`), oldest first.
    public func refreshes() throws -> [[String: Any]] {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile))
        let response = try client.send(OutboundRequest(method: .get, url: baseURL + "/_received"))
        guard let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] else {
            throw FakeGoogleError(description: "/_received is not a list")
        }
        return list.filter { $0["path"] as? String == "/v1/attestationData" }
    }

    /// How many calls answered with `"hold": true` have come so far (they wait for ``release()``).
    public func held() throws -> Int {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile))
        let response = try client.send(OutboundRequest(method: .get, url: baseURL + "/_held"))
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["held"] as? Int ?? -1
    }

    /// Lets every held call (and every later one planned to hold) be answered.
    public func release() throws {
        try post("/_release", [:])
    }

    private func post(_ path: String, _ body: [String: Any]) throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile))
        let response = try client.send(OutboundRequest(method: .post, url: baseURL + path, headers: [("Content-Type", "application/json")],
                                                       body: Array(try JSONSerialization.data(withJSONObject: body))))
        guard response.status == 200 else {
            throw FakeGoogleError(description: "\(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
    }
}
