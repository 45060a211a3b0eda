import TestSupport
import ChildProcess
import Foundation
import HTTPClient

/// A running `Tests/EndToEnd/fake_google.py`: Google's OAuth token endpoint and Play Integrity decode over TLS on a
/// free loopback port, with a certificate from ``TLSMaterial``'s throwaway CA. Stopped when released.
public final class FakeGoogle: @unchecked Sendable {
    // @unchecked Sendable: the process handle is only touched in init and deinit.
    private let process: ChildProcess
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// `https://127.0.0.1:<port>`.
    public let baseURL: String
    /// Its `host:port`, for the hosts a service account's `token_uri` may name (`--token-uri-hosts`).
    public var authority: String { String(baseURL.dropFirst("https://".count)) }
    /// The CA file that makes clients trust it.
    public let caFile: String

    /// Starts a fake and waits for its port.
    public init() throws {
        let material = try TLSMaterial.shared()
        let script = repositoryRoot + "/Tests/EndToEnd/fake_google.py"
        let errors = material.directory + "/fake-\(UUID().uuidString).err"
        process = try ChildProcess("/usr/bin/python3", ["-u", script, material.serverCertificate, material.serverKey],
                                   standardErrorPath: errors)
        guard let line = process.readLine(timeout: 30), let port = Int(line) else {
            throw FakeGoogleError(description: "the fake Google did not start: \(process.standardError)")
        }
        self.port = port
        baseURL = "https://127.0.0.1:\(port)"
        caFile = material.caFile
    }

    deinit {
        process.kill(SIGKILL)
    }

    /// A client that trusts the fake, with `configure` applied to its settings.
    public func client(_ configure: (inout HTTPClientConfiguration) -> Void = { _ in }) throws -> HTTPClient {
        var configuration = HTTPClientConfiguration(caFile: caFile)
        configure(&configuration)
        return try HTTPClient(configuration: configuration)
    }

    /// What the fake has received so far, in order (its own `/_received` excluded).
    public func received() throws -> [ReceivedRequest] {
        let response = try client().send(OutboundRequest(method: .get, url: baseURL + "/_received"))
        guard let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] else {
            throw FakeGoogleError(description: "/_received is not a list")
        }
        return list.map { item in
            ReceivedRequest(method: item["method"] as? String ?? "", path: item["path"] as? String ?? "",
                            query: item["query"] as? String ?? "",
                            headers: item["headers"] as? [String: String] ?? [:], body: item["body"] as? String ?? "")
        }
    }
}

/// One request the fake received.
public struct ReceivedRequest: Sendable {
    public let method: String
    public let path: String
    public let query: String
    /// Header names in lower case.
    public let headers: [String: String]
    public let body: String
}

extension FakeGoogle {
    /// A token shaped like a compact JWE (what Gatehouse sends to Google at all) carrying `instruction` for the fake
    /// ("status:N", "delay:S", "payload:B64URL"; see fake_google.py).
    public static func token(_ instruction: String) -> String {
        [#"{"alg":"A256KW","enc":"A256GCM","fake":true}"#, instruction].map(base64URL).joined(separator: ".") + ".AA.AA.AA"
    }

    private static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
