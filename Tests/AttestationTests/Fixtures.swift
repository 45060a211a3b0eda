import Attestation
import Crypto
import Foundation
import Testing

/// The shared App Attest vectors copied into Fixtures/ (see Fixtures/README.md and NOTICE.md).
enum Fixtures {
    static var directory: URL {
        get throws {
            try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil), "no Fixtures in the test bundle")
        }
    }

    static func json(_ file: String) throws -> [String: Any] {
        let data = try Data(contentsOf: try directory.appendingPathComponent(file))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(file) is not a JSON object")
    }

    static func text(_ file: String) throws -> String {
        try String(contentsOf: try directory.appendingPathComponent(file), encoding: .utf8)
    }

    /// The vector files of `kind` ("attestation" or "assertion") that index.json lists.
    static func files(kind: String) -> [String] {
        guard let index = try? json("index.json"), let vectors = index["vectors"] as? [[String: Any]] else { return [] }
        return vectors.compactMap { $0["kind"] as? String == kind ? $0["file"] as? String : nil }.sorted()
    }

    /// Unix seconds of an ISO 8601 instant, with or without fractional seconds (truncated).
    static func unixTime(_ text: String) throws -> Int64 {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(plain.date(from: text) ?? fractional.date(from: text), "not an ISO 8601 time: \(text)")
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// The first ISO 8601 instant inside `text` ("verify at 2025-01-14T13:46:33Z (one day after …)").
    static func instant(in text: String) throws -> Int64 {
        let word = try #require(text.split(separator: " ").first { $0.contains("T") && $0.hasSuffix("Z") }, "no time in \(text)")
        return try unixTime(String(word))
    }

    static func base64(_ text: String) throws -> [UInt8] {
        try #require(Base64.decode(text), "not base64: \(text.prefix(40))")
    }

    static func hex(_ text: String) throws -> [UInt8] {
        try #require(Hex.decode(text), "not hex: \(text.prefix(40))")
    }
}

/// Verifiers the tests share.
enum Verifiers {
    /// A verifier trusting the built-in Apple root.
    static func apple() throws -> AppAttestVerifier {
        AppAttestVerifier(roots: try AppAttestRoots.apple())
    }
}
