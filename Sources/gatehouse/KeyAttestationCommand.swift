import Attestation
import Crypto
import Foundation
import Gatehouse
import JSON

/// `gatehouse key-attestation verify`: an Android key attestation chain judged offline, as docs/device-api.md
/// "Offline, simulated, observed" describes. Prints one JSON object (verdict, keyId, observed); exits 0 verified, 1
/// judged and not verified, 2 wrong usage or an unreadable file.
enum KeyAttestationCommand {
    static let usage = """
    Usage:
      gatehouse key-attestation verify --chain FILE (--challenge TEXT | --challenge-hex HEX) [--package NAME --digest D ...]
          [--policy JSON|@FILE] [--status FILE] [--roots PEM] [--at RFC3339]

    FILE is a path or - (standard input): PEM certificates, or a JSON array of base64 DER, the key's certificate first.
    --challenge is the challenge text the phone was given (its UTF-8 bytes); --challenge-hex the bytes in hex.
    --package and each --digest (hex, colons allowed, or base64 of 32 bytes) play the app the environment registers;
    without --package the attestation application id is observed, not judged. --policy is an environment's
    keyAttestation (JSON text, or @FILE), taken as enabled. --status is Google's status list as a file
    (https://android.googleapis.com/attestation/status); without it revocation is unknown. --roots replaces Google's
    attestation roots (PEM). --at sets the time of judgement (default now).
    Prints one JSON object: {"verdict": {"status", "reasons"}, "keyId", "observed"}. Exit status: 0 verified, 1 not
    verified, 2 wrong usage or an unreadable file.
    """

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return arguments.isEmpty ? 2 : 0
        }
        do {
            guard arguments[0] == "verify" else { throw ConfigurationError("unknown key-attestation command \(arguments[0])\n\n\(usage)") }
            let result = try verify(Array(arguments.dropFirst()))
            print(result.json.text)
            return result.verdict.isVerified ? 0 : 1
        } catch {
            Command.fail("\(error)")
            return 2
        }
    }

    static func verify(_ arguments: [String]) throws -> KeyAttestationResult {
        let options = try Command.options(arguments, values: ["--chain", "--challenge", "--challenge-hex", "--package", "--policy", "--status",
                                                              "--roots", "--at"], repeatable: ["--digest"])
        let chain = try readChain(try options.required("--chain"))
        let challenge: [UInt8]
        switch (options["--challenge"], options["--challenge-hex"]) {
        case (let text?, nil): challenge = Array(text.utf8)
        case (nil, let hex?):
            guard let bytes = Hex.decode(hex) else { throw ConfigurationError("--challenge-hex is not hex") }
            challenge = bytes
        default: throw ConfigurationError("give exactly one of --challenge and --challenge-hex")
        }
        var policy = KeyAttestationPolicy()
        if let text = options["--policy"] {
            policy = try Command.policy(text, from: policy) { KeyAttestationPolicyFields.apply($0, at: $1, to: &$2, errors: &$3) }
        }
        policy.enabled = true
        var apps: [KeyAttestationVerifier.RegisteredApp]?
        if let package = options["--package"] {
            apps = [.init(packageName: package, digests: try options.all("--digest").map(PlayIntegrityCommand.parseDigest))]
        } else if !options.all("--digest").isEmpty {
            throw ConfigurationError("--digest plays a registered app's certificate: give its --package too")
        }
        var statusList: KeyAttestationStatusList?
        if let file = options["--status"] {
            do {
                statusList = try KeyAttestationStatusList.parse(try JSONParser.parse(String(decoding: try AppAttestCommand.readFile(file), as: UTF8.self)))
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError("--status \(file) is not Google's status list: \(error)")
            }
        }
        let roots: KeyAttestationRoots
        if let file = options["--roots"] {
            do {
                roots = try KeyAttestationRoots(pem: String(decoding: try AppAttestCommand.readFile(file), as: UTF8.self))
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError("--roots \(file) holds no PEM certificate")
            }
        } else {
            roots = try KeyAttestationRoots.google()
        }
        let now = try options["--at"].map(AppAttestCommand.parseTime) ?? Int64(Date().timeIntervalSince1970)
        return KeyAttestationVerifier(roots: roots).verify(chain: chain, challenge: challenge, policy: policy, apps: apps,
                                                           statusList: statusList, at: now)
    }

    /// The chain in `path`: PEM certificates, or a JSON array of base64 DER (each unreadable one left as its bytes,
    /// for the verifier to call malformed).
    static func readChain(_ path: String) throws -> [[UInt8]] {
        let text = String(decoding: try AppAttestCommand.readFile(path), as: UTF8.self)
        if text.contains("-----BEGIN CERTIFICATE-----") {
            do {
                return try Certificate.chain(pem: text).map(\.der)
            } catch {
                throw ConfigurationError("--chain \(path): \(error)")
            }
        }
        guard let json = try? JSONParser.parse(text), let elements = json.array else {
            throw ConfigurationError("--chain \(path) is neither PEM certificates nor a JSON array of base64 DER")
        }
        return try elements.enumerated().map { index, element in
            guard let text = element.string, let der = Base64.decode(text) else { throw ConfigurationError("--chain \(path): element \(index) is not base64") }
            return der
        }
    }
}
