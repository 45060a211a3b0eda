import Attestation
import Crypto
import Foundation
import Gatehouse
import JSON
import Simulator

/// `gatehouse simulate`: plays a phone against a running server (docs/device-api.md "Assessment") and prints what came
/// back as one JSON object; `make-keys` and `make-ca` write the throwaway Play Integrity keys and App Attest CA a
/// simulated phone needs. Exit status: 0 assessed (200), 1 anything else answered, 2 wrong usage or unreachable.
enum SimulateCommand {
    static let usage = """
    Usage:
      gatehouse simulate --endpoint http://HOST:PORT --api-key pk_… --platform android|ios [options]
      gatehouse simulate make-keys DIR     Play Integrity response keys for a simulated Android app
      gatehouse simulate make-ca DIR       a synthetic App Attest CA (serve with --app-attest-roots DIR/roots.pem
                                           --app-attest-receipt-roots DIR/receipt-roots.pem) and key attestation CA
                                           (serve with --key-attestation-roots DIR/key-attestation-roots.pem)

    Android: --decryption-key B64 --verification-private-key FILE (make-keys writes both) --digest HEX (the signing
      certificate the app reports and its token carries) [--app-id PACKAGE] [--verdict genuine|strong|rooted|basic|
      emulator|unrecognized|unlicensed|testing|outdated] (genuine meets device integrity, strong strong integrity too;
      testing is a tester's overridden response; outdated has version code 1).
    Android without Play: --provider key-attestation --ca-cert FILE --ca-key FILE (make-ca's key-attestation-ca.pem
      and .key) --digest HEX [--app-id PACKAGE] [--boot-state verified|self-signed|unverified] [--boot-key HEX] (the
      verified boot key's SHA-256) [--unlocked] [--patch-level YYYY-MM] [--security-level software|tee|strongbox]
      [--rkp] (a remotely provisioned chain): a key attested with a fresh challenge, registered, then signing.
    iOS: --ca-cert FILE --ca-key FILE (make-ca's ca.pem and ca.key; the receipt signer make-ca writes beside them
      signs the attestation's receipt) --app-id TEAMID.bundleId [--validation-category appStore|testFlight|development|
      enterprise|developerID|localSigning|N] [--bundle-version 4.2] (iOS 27's launch validation extensions).
    Debug (a simulator, an emulator or CI): --debug-token dt_… sends the environment's debug token instead of an
      attestation; nothing else is needed but --app-id (the package, or the bundle id or TEAMID.bundleId) and, on
      Android, --digest HEX.
    Both: [--device-id ID] [--no-bind] (no receipt key) [--no-attestation] [--wrong-signature] [--clock-skew SECONDS]
      [--secret-key sk_…] (check the receipt with /api/v4/receipts/verify) [--proof-method GET] [--proof-path /api/orders].
    Prints {"canonical", "assess": {status, body}, "receipt": {header, claims}, "proof", "verify"} (and the App
    Attest challenge and registration on iOS).
    """

    static let valued: Set<String> = ["--endpoint", "--api-key", "--platform", "--app-id", "--device-id", "--decryption-key",
                                      "--verification-private-key", "--digest", "--verdict", "--ca-cert", "--ca-key", "--clock-skew",
                                      "--secret-key", "--proof-method", "--proof-path", "--debug-token", "--validation-category",
                                      "--bundle-version", "--provider", "--boot-state", "--boot-key", "--patch-level", "--security-level"]
    static let flags: Set<String> = ["--no-bind", "--no-attestation", "--wrong-signature", "--unlocked", "--rkp"]

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return arguments.isEmpty ? 2 : 0
        }
        do {
            switch arguments[0] {
            case "make-keys": return try makeKeys(arguments.dropFirst().first)
            case "make-ca": return try makeCA(arguments.dropFirst().first)
            default:
                let report = try simulate(try Command.options(arguments, values: Array(valued), switches: Array(flags)))
                print(report.text)
                return report["assess"]?["status"]?.integer == 200 ? 0 : 1
            }
        } catch let error as ConfigurationError {
            Command.fail("\(error)")
            return 2
        } catch {
            Command.fail("\(error)")
            return 2
        }
    }

    static func simulate(_ values: ConfigurationValues) throws -> JSON {
        let http = try PlainHTTP(endpoint: try values.required("--endpoint"))
        let apiKey = try values.required("--api-key")
        let platform = try values.required("--platform")
        var options = Phone.Options(apiKey: apiKey, appID: "")
        if let device = values["--device-id"] { options.deviceID = device }
        options.bind = values["--no-bind"] == nil
        options.withoutAttestation = values["--no-attestation"] != nil
        if values["--wrong-signature"] != nil { options.signingKey = apiKey + "-not-it" }
        if let skew = values["--clock-skew"] {
            guard let seconds = Int64(skew) else { throw ConfigurationError("--clock-skew takes whole seconds") }
            options.clockSkew = seconds * 1000
        }
        options.secretKey = values["--secret-key"]
        if let method = values["--proof-method"] { options.proofMethod = method }
        if let path = values["--proof-path"] { options.proofPath = path }
        if let label = values["--validation-category"] {
            guard let category = ValidationCategory(label: label) else {
                throw ConfigurationError("--validation-category must be one of \(ValidationCategory.knownNames.joined(separator: ", ")) or a number")
            }
            options.validationCategory = category.value
        }
        if let version = values["--bundle-version"] {
            guard !version.isEmpty, version.utf8.count <= AppAttestExtensions.maxBundleVersionBytes else {
                throw ConfigurationError("--bundle-version must be 1 to \(AppAttestExtensions.maxBundleVersionBytes) bytes")
            }
            options.bundleVersion = version
        }
        if let token = values["--debug-token"] {
            guard platform == "android" || platform == "ios" else { throw ConfigurationError("--platform must be android or ios") }
            let appID = try values.required("--app-id")
            options.appID = platform == "ios" ? bundleID(appID) : appID
            let digest = platform == "android" ? try PlayIntegrityCommand.parseDigest(try values.required("--digest")) : nil
            return try Phone(http: http, options: options).debug(platform: platform, token: token, digest: digest)
        }
        switch platform {
        case "android" where values["--provider"] == "key-attestation":
            options.appID = values["--app-id"] ?? "com.example.app"
            return try Phone(http: http, options: options).keyAttestation(ca: try keyAttestationCA(values),
                                                                         device: try attestedDevice(values, packageName: options.appID))
        case "android":
            guard values["--provider"] == nil || values["--provider"] == "play-integrity" else {
                throw ConfigurationError("--provider must be play-integrity or key-attestation on Android")
            }
            options.appID = values["--app-id"] ?? "com.example.app"
            let decryption = try values.required("--decryption-key")
            guard let decryptionKey = Base64.decode(decryption), decryptionKey.count == 32 else {
                throw ConfigurationError("--decryption-key must be base64 of 32 bytes")
            }
            let signing = try ECPrivateKey(pem: try read(try values.required("--verification-private-key")))
            let digest = try PlayIntegrityCommand.parseDigest(try values.required("--digest"))
            let verdictName = values["--verdict"] ?? "genuine"
            guard let verdict = SimulatedVerdict(rawValue: verdictName) else {
                throw ConfigurationError("--verdict must be one of \(SimulatedVerdict.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return try Phone(http: http, options: options).android(minter: PlayIntegrityMinter(decryptionKey: decryptionKey, signingKey: signing),
                                                                  digest: digest, verdict: verdict)
        case "ios":
            let teamAppID = try values.required("--app-id")
            guard teamAppID.utf8.count > 11, Array(teamAppID.utf8)[10] == UInt8(ascii: ".") else {
                throw ConfigurationError("--app-id must be TEAMID.bundleId on iOS (a 10-character team id)")
            }
            options.appID = String(teamAppID.dropFirst(11))
            let certificate = try values.required("--ca-cert")
            let ca = try SyntheticAppAttest(certificatePEM: try read(certificate), keyPEM: try read(try values.required("--ca-key")),
                                            receipts: try receiptSigner(beside: certificate))
            return try Phone(http: http, options: options).ios(ca: ca, teamAppID: teamAppID)
        default:
            throw ConfigurationError("--platform must be android or ios")
        }
    }

    /// The key attestation CA `make-ca` wrote: `--ca-cert` and `--ca-key`, and `key-attestation-roots.pem` beside them.
    static func keyAttestationCA(_ values: ConfigurationValues) throws -> SyntheticKeyAttestation {
        let certificate = try values.required("--ca-cert")
        let roots = URL(fileURLWithPath: certificate).deletingLastPathComponent().appendingPathComponent("key-attestation-roots.pem").path
        return SyntheticKeyAttestation(rootPEM: try read(roots), intermediatePEM: try read(certificate), intermediateKeyPEM: try read(try values.required("--ca-key")))
    }

    /// The phone the key attestation options describe, asking for a key for `packageName`.
    static func attestedDevice(_ values: ConfigurationValues, packageName: String) throws -> SyntheticKeyAttestation.Phone {
        var device = SyntheticKeyAttestation.Phone()
        device.packageName = packageName
        device.signatureDigests = [try PlayIntegrityCommand.parseDigest(try values.required("--digest"))]
        switch values["--boot-state"] ?? "verified" {
        case "verified": device.bootState = .verified
        case "self-signed": device.bootState = .selfSigned
        case "unverified": device.bootState = .unverified
        default: throw ConfigurationError("--boot-state must be verified, self-signed or unverified")
        }
        if let key = values["--boot-key"] {
            guard let bytes = Hex.decode(key), bytes.count == 32 else { throw ConfigurationError("--boot-key must be 64 hex digits (a SHA-256)") }
            device.bootKey = bytes
        }
        device.locked = values["--unlocked"] == nil
        if let text = values["--patch-level"] {
            guard let level = KeyAttestationPolicy.patchLevel(text) else { throw ConfigurationError("--patch-level must be YYYY-MM") }
            device.patchLevel = level
        }
        if let level = values["--security-level"] {
            guard let parsed = KeySecurityLevel(name: level) else { throw ConfigurationError("--security-level must be software, tee or strongbox") }
            device.securityLevel = parsed
        }
        device.remotelyProvisioned = values["--rkp"] != nil
        return device
    }

    /// The bundle id of `TEAMID.bundleId` (a 10-character team id of capitals and digits), or `appID` as it is.
    static func bundleID(_ appID: String) -> String {
        let bytes = Array(appID.utf8)
        guard bytes.count > 11, bytes[10] == UInt8(ascii: "."),
              bytes[..<10].allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return appID }
        return String(appID.dropFirst(11))
    }

    /// The receipt signer `make-ca` wrote beside `certificate` (`receipt-signer.pem`, `receipt-signer.key`,
    /// `receipt-ca.pem`), nil when it is not there (the attestation then carries a receipt no root anchors).
    static func receiptSigner(beside certificate: String) throws -> SyntheticAppleReceipts? {
        let folder = URL(fileURLWithPath: certificate).deletingLastPathComponent().path
        let names = ["receipt-signer.pem", "receipt-signer.key", "receipt-ca.pem", "receipt-roots.pem"]
        guard names.allSatisfy({ FileManager.default.fileExists(atPath: folder + "/" + $0) }) else { return nil }
        let texts = try names.map { try read(folder + "/" + $0) }
        return try SyntheticAppleReceipts(signerPEM: texts[0], signerKeyPEM: texts[1], intermediatePEM: texts[2], rootPEM: texts[3])
    }

    static func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError("cannot read \(path)")
        }
    }

    /// Writes `decryption.key` (base64) and `verification.pem` (the private half Google would hold) into `directory`
    /// and prints the `playIntegrity.local` object to PATCH into an environment.
    static func makeKeys(_ directory: String?) throws -> Int32 {
        guard let directory else { throw ConfigurationError("make-keys needs a directory") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let minter = try PlayIntegrityMinter.random()
        try write(minter.decryptionKeyBase64 + "\n", to: directory + "/decryption.key")
        try write(minter.signingKey.pkcs8PEM, to: directory + "/verification.pem")
        print(JSON.object([JSON.Member("playIntegrity", ["local": ["decryptionKey": .string(minter.decryptionKeyBase64),
                                                                    "verificationKey": .string(minter.verificationKeyBase64)]])]).text)
        return 0
    }

    /// Writes a synthetic App Attest CA into `directory` (`roots.pem` for the server, `ca.pem` and `ca.key` for the
    /// phone, the receipt signer) and a synthetic key attestation CA (`key-attestation-roots.pem` for the server,
    /// `key-attestation-ca.pem` and `.key` for the phone).
    static func makeCA(_ directory: String?) throws -> Int32 {
        guard let directory else { throw ConfigurationError("make-ca needs a directory") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ca = try SyntheticAppAttest()
        try write(ca.rootPEM, to: directory + "/roots.pem")
        try write(ca.intermediatePEM, to: directory + "/ca.pem")
        try write(ca.intermediateKeyPEM, to: directory + "/ca.key")
        if let receipts = ca.receipts {
            try write(receipts.rootPEM, to: directory + "/receipt-roots.pem")
            try write(receipts.intermediatePEM, to: directory + "/receipt-ca.pem")
            try write(receipts.signerPEM, to: directory + "/receipt-signer.pem")
            try write(receipts.signerKeyPEM, to: directory + "/receipt-signer.key")
        }
        let keyAttestation = try SyntheticKeyAttestation()
        try write(keyAttestation.rootPEM, to: directory + "/key-attestation-roots.pem")
        try write(keyAttestation.intermediatePEM, to: directory + "/key-attestation-ca.pem")
        try write(keyAttestation.intermediateKeyPEM, to: directory + "/key-attestation-ca.key")
        print("wrote \(directory)/roots.pem and \(directory)/receipt-roots.pem (serve with --app-attest-roots \(directory)/roots.pem "
            + "--app-attest-receipt-roots \(directory)/receipt-roots.pem), \(directory)/ca.pem and \(directory)/ca.key (simulate with --ca-cert and "
            + "--ca-key) and the receipt signer beside them; \(directory)/key-attestation-roots.pem (serve with --key-attestation-roots) and "
            + "\(directory)/key-attestation-ca.pem and .key (simulate --provider key-attestation with --ca-cert and --ca-key)")
        return 0
    }

    static func write(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigurationError("cannot write \(path)")
        }
    }
}
