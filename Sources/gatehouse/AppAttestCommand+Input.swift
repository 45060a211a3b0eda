import Attestation
import Crypto
import Foundation
import Gatehouse

extension AppAttestCommand {
    /// Exactly one of `dataFlag` (turned into a hash by `hash`) and `--client-data-hash HEX`.
    static func clientDataHash(_ options: ConfigurationValues, dataFlag: String, hash: (String) throws -> [UInt8]) throws -> [UInt8] {
        switch (options[dataFlag], options["--client-data-hash"]) {
        case (let data?, nil): return try hash(data)
        case (nil, let hex?): return try decode(hex, as: "--client-data-hash", Hex.decode)
        default: throw ConfigurationError("give exactly one of \(dataFlag) and --client-data-hash")
        }
    }

    static func decode(_ text: String, as name: String, _ decoder: (String) -> [UInt8]?) throws -> [UInt8] {
        guard let bytes = decoder(text.filter { !$0.isWhitespace }) else { throw ConfigurationError("\(name) does not decode") }
        return bytes
    }

    /// The bytes of a path, or of standard input for `-`.
    static func readFile(_ path: String) throws -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else { throw ConfigurationError("cannot read \(path)") }
        return Array(data)
    }

    /// A FILE argument's object: its content decoded as base64 when it decodes whole (either alphabet, white space
    /// ignored), else the raw bytes.
    static func readObject(_ path: String) throws -> [UInt8] {
        let content = try readFile(path)
        let text = String(decoding: content.filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }, as: UTF8.self)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 < 0x80 }), let decoded = Base64.decode(text) { return decoded }
        return content
    }

    /// KEY: a PEM file, base64 SPKI DER, or hex X9.62.
    static func readPublicKey(_ argument: String) throws -> ECPublicKey {
        if FileManager.default.fileExists(atPath: argument) {
            let text = String(decoding: try readFile(argument), as: UTF8.self)
            guard let key = try? ECPublicKey(pem: text) else { throw ConfigurationError("\(argument) holds no P-256 PEM public key") }
            return key
        }
        if let point = Hex.decode(argument), let key = try? ECPublicKey(x962: point) { return key }
        if let der = Base64.decode(argument.filter { !$0.isWhitespace }), let key = try? ECPublicKey(derSubjectPublicKeyInfo: der) {
            return key
        }
        throw ConfigurationError("--public-key is neither a PEM file, base64 SPKI DER nor hex X9.62 of a P-256 key")
    }

    /// An RFC 3339 time (fractional seconds allowed) in Unix seconds.
    static func parseTime(_ text: String) throws -> Int64 {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = plain.date(from: text) ?? fractional.date(from: text) else {
            throw ConfigurationError("--at must be an RFC 3339 time such as 2024-04-18T00:00:00Z")
        }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func verdictObject(_ verdict: Verdict) -> [String: Any] {
        ["status": verdict.status.rawValue, "reasons": verdict.reasons]
    }

    /// One line of JSON (keys sorted).
    static func serialize(_ object: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
