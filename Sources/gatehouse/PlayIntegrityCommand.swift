import Attestation
import Crypto
import Foundation
import Gatehouse
import JSON

/// `gatehouse play-integrity decode`: a Play Integrity token decrypted, verified and judged offline with an app's
/// local keys, as docs/device-api.md "Offline CLI" describes. Prints one JSON object (verdict, payload, observed); exits
/// 0 verified, 1 judged and not verified, 2 wrong usage or an unreadable file.
enum PlayIntegrityCommand {
    static let usage = """
    Usage:
      gatehouse play-integrity decode --token FILE --decryption-key B64 --verification-key B64 --request-hash TEXT
          [--package NAME] [--digest D]... [--outside-play] [--policy JSON|@FILE] [--environment-kind production|development]
          [--at RFC3339]

    FILE is a path or - (standard input); content that decodes whole as base64 (white space ignored) is base64,
    anything else the token itself (white space around it ignored). The keys are Play Console's response keys:
    the AES-256 decryption key and the verification key (base64 of a DER P-256 SubjectPublicKeyInfo).
    --request-hash is what the app passed as requestHash (or as nonce, classic). --package plays the registered
    package and the one the request names (default: the token's own); each --digest (hex, colons allowed, or base64
    of 32 bytes) a registered signing certificate (default: the token's own, so that check passes); --outside-play
    marks the app as shipped outside Play. --policy is the environment's playIntegrity.policy (JSON text, or @FILE);
    --environment-kind plays the environment's kind for the policy's defaults (development when absent: testing
    responses pass). --at sets the verification time (default now).
    Prints one JSON object: {"verdict": {"status", "reasons"}, "payload", "observed"} and "remediation" when a dialog
    would fix the failure. Exit status: 0 verified, 1 not verified, 2 wrong usage or an unreadable file.
    """

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return arguments.isEmpty ? 2 : 0
        }
        do {
            guard arguments[0] == "decode" else {
                throw ConfigurationError("unknown play-integrity command \(arguments[0])\n\n\(usage)")
            }
            let judgement = try decode(Array(arguments.dropFirst()))
            print(judgement.json.text)
            return judgement.verdict.isVerified ? 0 : 1
        } catch {
            Command.fail("\(error)")
            return 2
        }
    }

    static func decode(_ arguments: [String]) throws -> PlayIntegrityJudgement {
        let options = try Command.options(arguments, values: ["--token", "--decryption-key", "--verification-key", "--request-hash", "--package", "--at",
                                                             "--policy", "--environment-kind"], repeatable: ["--digest"], switches: ["--outside-play"])
        let tokenPath = try options.required("--token")
        let keys: PlayIntegrityKeys
        do {
            keys = try PlayIntegrityKeys(decryptionKeyBase64: try options.required("--decryption-key"),
                                         verificationKeyBase64: try options.required("--verification-key"))
        } catch let error as PlayIntegrityKeyError {
            throw ConfigurationError("--\(error.field == .decryptionKey ? "decryption-key" : "verification-key"): \(error.message)")
        }
        let requestHash = try options.required("--request-hash")
        let digests = try options.all("--digest").map(parseDigest)
        let now = try options["--at"].map { try AppAttestCommand.parseTime($0) * 1000 }
            ?? Int64(Date().timeIntervalSince1970 * 1000)
        let token = trimmed(try AppAttestCommand.readObject(tokenPath))
        let production: Bool
        switch options["--environment-kind"] ?? "development" {
        case "production": production = true
        case "development": production = false
        case let other: throw ConfigurationError("--environment-kind must be production or development, not \(other)")
        }
        var policy = PlayIntegrityPolicy()
        if let text = options["--policy"] {
            policy = try Command.policy(text, from: policy) { PlayIntegrityPolicyFields.apply($0, at: $1, to: &$2, errors: &$3) }
        }

        let payload: JSON
        do {
            payload = try PlayIntegrityDecoder(keys: keys).decode(token)
        } catch {
            return PlayIntegrityJudgement(decodeError: error)
        }
        // What the token says of itself, to stand in for what was not given.
        let evaluator = PlayIntegrityEvaluator()
        let own = evaluator.evaluate(payload: payload, registration: PlayIntegrityRegistration(apps: []),
                                     request: PlayIntegrityRequest(packageName: "", requestHash: requestHash), now: now, seenBefore: false).observed
        let packageName = options["--package"] ?? own.packageName ?? ""
        let registered = digests.isEmpty ? own.certificateDigests.compactMap { Hex.decode($0.filter { $0 != ":" }) } : digests
        let registration = PlayIntegrityRegistration(apps: [
            AndroidAppRegistration(packageName: packageName, certificateDigests: registered, outsidePlay: options["--outside-play"] != nil),
        ], policy: policy, isProduction: production)
        return evaluator.evaluate(payload: payload, registration: registration,
                                  request: PlayIntegrityRequest(packageName: packageName, requestHash: requestHash), now: now, seenBefore: false)
    }

    /// A certificate digest: hex (colons allowed, any case) or base64 (either alphabet) of 32 bytes.
    static func parseDigest(_ text: String) throws -> [UInt8] {
        if let bytes = Hex.decode(text.filter { $0 != ":" }), bytes.count == 32 { return bytes }
        if let bytes = Base64.decode(text), bytes.count == 32 { return bytes }
        throw ConfigurationError("--digest \(text) is not hex or base64 of 32 bytes (a SHA-256 certificate digest)")
    }

    /// The bytes without ASCII white space around them (a token file usually ends with a line break).
    static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        return Array(bytes.drop { space.contains($0) }.reversed().drop { space.contains($0) }.reversed())
    }
}
