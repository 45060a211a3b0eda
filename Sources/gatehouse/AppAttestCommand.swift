import Attestation
import Crypto
import Foundation
import Gatehouse

/// `gatehouse app-attest verify-attestation | verify-assertion | verify-receipt`: the App Attest verifier offline, on files, as
/// docs/device-api.md "Offline CLI" describes. Prints one JSON object; exits 0 verified, 1 judged and not verified,
/// 2 wrong usage or an unreadable file.
enum AppAttestCommand {
    static let usage = """
    Usage:
      gatehouse app-attest verify-attestation --attestation FILE --key-id B64 --app-id TEAMID.BUNDLE
          (--challenge TEXT | --client-data-hash HEX) [--at RFC3339] [--environment-kind production|development]
          [--roots PEM] [--receipt-roots PEM]
      gatehouse app-attest verify-assertion --assertion FILE --public-key KEY --app-id TEAMID.BUNDLE
          (--client-data FILE | --client-data-hash HEX) [--previous-counter N]
      gatehouse app-attest verify-receipt --receipt FILE [--public-key KEY] [--app-id TEAMID.BUNDLE] [--at RFC3339]
          [--roots PEM]

    FILE is a path or - (standard input); content that decodes whole as base64 (white space ignored) is base64,
    anything else raw bytes. KEY is a PEM file, base64 SPKI DER, or hex X9.62. --challenge is hashed with SHA-256
    (UTF-8); --client-data-hash is used as given. --at defaults to now; --environment-kind to development (which
    accepts both key kinds); --roots replaces Apple's App Attestation Root CA (for verify-receipt, and
    --receipt-roots for an attestation's receipt: Apple Root CA - G3). --previous-counter N plays a key whose
    newest counter is N and which has seen no other.
    Prints one JSON object: {"verdict": {"status", "reasons"}, …} (verify-attestation adds "receipt" and, when the
    authenticator data carries them, "extensions"); verify-receipt prints {"valid", "reasons", "type", "appId",
    "environment", "creationTime", "notBefore", "expirationTime", "riskMetric", "publicKey"}. Exit status:
    0 verified (valid), 1 not, 2 wrong usage or an unreadable file.
    """

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return arguments.isEmpty ? 2 : 0
        }
        do {
            let (passed, output): (Bool, [String: Any]) = switch arguments[0] {
            case "verify-attestation": judged(try verifyAttestation(Array(arguments.dropFirst())))
            case "verify-assertion": judged(try verifyAssertion(Array(arguments.dropFirst())))
            case "verify-receipt": try verifyReceipt(Array(arguments.dropFirst()))
            default: throw ConfigurationError("unknown app-attest command \(arguments[0])\n\n\(usage)")
            }
            print(try serialize(output))
            return passed ? 0 : 1
        } catch {
            Command.fail("\(error)")
            return 2
        }
    }

    /// Whether a verdict passed, beside its output.
    static func judged(_ result: (Verdict, [String: Any])) -> (Bool, [String: Any]) {
        (result.0.isVerified, result.1)
    }

    static func verifyAttestation(_ arguments: [String]) throws -> (Verdict, [String: Any]) {
        let options = try Command.options(arguments, values: ["--attestation", "--key-id", "--app-id", "--challenge", "--client-data-hash",
                                                             "--at", "--environment-kind", "--roots", "--receipt-roots"])
        let attestation = try readObject(try options.required("--attestation"))
        let keyId = try decode(try options.required("--key-id"), as: "--key-id", Base64.decode)
        let appId = try options.required("--app-id")
        let clientDataHash = try clientDataHash(options, dataFlag: "--challenge") { SHA256.hash($0) }
        let now = try options["--at"].map(parseTime) ?? Int64(Date().timeIntervalSince1970)
        let production: Bool
        switch options["--environment-kind"] ?? "development" {
        case "production": production = true
        case "development": production = false
        case let other: throw ConfigurationError("--environment-kind must be production or development, not \(other)")
        }
        let roots: AppAttestRoots
        if let path = options["--roots"] {
            roots = try AppAttestRoots(pem: String(decoding: try readFile(path), as: UTF8.self))
        } else {
            roots = try AppAttestRoots.apple()
        }
        let receiptRoots = try receiptRoots(options["--receipt-roots"])
        let result = AppAttestVerifier(roots: roots, receiptRoots: receiptRoots).verifyAttestation(
            AttestationRequest(attestation: attestation, keyId: keyId, clientDataHash: clientDataHash),
            registration: AppAttestRegistration(appIds: [appId], isProduction: production), now: now)
        var output: [String: Any] = [
            "verdict": verdictObject(result.verdict),
            "keyId": result.keyId.map { Base64.encode($0) } ?? NSNull(),
            "appId": result.appId ?? NSNull(),
            "attestationEnvironment": result.environment?.rawValue ?? NSNull(),
            "publicKey": result.publicKey.map { Base64.encode($0.derSubjectPublicKeyInfo) } ?? NSNull(),
        ]
        // The receipt is checked whatever the verdict (the verifier checks it only for a genuine attestation).
        if let receipt = result.receipt {
            let check = result.receiptCheck ?? AppAttestReceiptReader(roots: receiptRoots).check(
                receipt, expecting: AppAttestReceiptExpectation(type: AppAttestReceipt.attestType, appId: result.attestedAppId ?? appId,
                                                                attestedKey: result.publicKey?.x962), at: now)
            output["receipt"] = receiptObject(check)
        }
        if let extensions = result.extensions { output["extensions"] = extensionsObject(extensions) }
        return (result.verdict, output)
    }

    static func verifyAssertion(_ arguments: [String]) throws -> (Verdict, [String: Any]) {
        let options = try Command.options(arguments, values: ["--assertion", "--public-key", "--app-id", "--client-data",
                                                             "--client-data-hash", "--previous-counter"])
        let assertion = try readObject(try options.required("--assertion"))
        let publicKey = try readPublicKey(try options.required("--public-key"))
        let appId = try options.required("--app-id")
        let clientDataHash = try clientDataHash(options, dataFlag: "--client-data") { SHA256.hash(try readObject($0)) }
        var window = CounterWindow.fresh
        if let text = options["--previous-counter"] {
            guard let newest = UInt32(text) else { throw ConfigurationError("--previous-counter must be an integer from 0 to \(UInt32.max)") }
            window = CounterWindow(newest: newest, seenBelow: 0)
        }
        // The key plays a production key in a development environment: developmentKey cannot arise offline.
        let key = AttestedKeyState(publicKey: publicKey, appId: appId, environment: .production, counter: window)
        let result = AppAttestVerifier(roots: AppAttestRoots(certificates: [])).verifyAssertion(
            AssertionRequest(assertion: assertion, clientDataHash: clientDataHash), key: key,
            registration: AppAttestRegistration(appIds: [appId], isProduction: false))
        return (result.verdict, [
            "verdict": verdictObject(result.verdict),
            "counter": result.counter.map { Int($0) } ?? NSNull(),
            "keyId": Base64.encode(SHA256.hash(publicKey.x962)),
            "appId": appId,
            "publicKey": Base64.encode(publicKey.derSubjectPublicKeyInfo),
        ])
    }
}
