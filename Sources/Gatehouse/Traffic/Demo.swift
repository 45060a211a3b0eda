import Crypto
import Storage
import SeededRandom

/// Sample data for `gatehouse serve --demo`: a "Demo" environment with one Android and one iOS app and a week of
/// verdicts in which Play Integrity shows the upload-key mistake (the app-signing key's digest is not registered)
/// while App Attest is healthy — so a newcomer sees the checklist name a real fault, and can fix it.
public enum Demo {
    /// The demo environment's name.
    public static let environmentName = "Demo"
    public static let packageName = "com.example.demo"
    public static let appleAppID = "ABCDE12345.com.example.demo"
    /// The digest registered by mistake: the upload key's.
    public static let uploadKeyDigest: [UInt8] = (0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) }
    /// The digest genuine phones report: Play's app-signing key.
    public static let appSigningKeyDigest: [UInt8] = (0..<32).map { UInt8(($0 * 91 + 200) & 0xFF) }
    /// A public EC P-256 key standing in for Play Console's verification key (not secret).
    static let verificationKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEkPm0D+Ie98nKUh/g768oA75Ecn3ieNXVys+TTNGAqN/9z2uGdOFW0gTVVAYMfcn2BNcRBBrzdwMmTpgCvn/wSA=="

    /// Creates the demo environment and its week of verdicts when the database has no environment yet.
    /// Returns whether it did.
    @discardableResult
    public static func populateIfFresh(_ domain: Domain) throws -> Bool {
        let environments = domain.environments
        guard try environments.list().isEmpty else { return false }
        let (environment, _) = try environments.create(name: environmentName, kind: .production, actor: .system)
        var patch = EnvironmentPatch()
        patch.androidApps = .set([AndroidApp(packageName: packageName, certificateDigests: [uploadKeyDigest], outsidePlay: false)])
        patch.appleAppIDs = .set([appleAppID])
        patch.localKeys = .set(LocalDecodingKeys(decryptionKey: try SecureRandom.bytes(32), verificationKey: Base64.decode(verificationKey) ?? []))
        _ = try environments.patch(environment.id, with: patch, actor: .system)
        for day in week(now: domain.clock()) {
            _ = try domain.verdicts.ingest(day, environmentID: environment.id)
        }
        return true
    }

    /// Whether `environment` is the one `--demo` made: named `Demo`, and created by Gatehouse itself (the audit
    /// entry of its creation has a system actor), so an admin's own environment named "Demo" is not taken for it.
    public static func isDemo(_ environment: Environment, audit: AuditLog) throws -> Bool {
        guard environment.name == environmentName else { return false }
        return try audit.createdBySystem(environment.id)
    }

    /// A week of generated verdicts, a batch per day (deterministic, so every demo looks the same).
    static func week(now: Int64) -> [[TrafficVerdict]] {
        var random = SplitMix64(seed: 2026)
        let start = now - 7 * 86_400 + 3600
        var days: [[TrafficVerdict]] = []
        for day in 0..<7 {
            var batch: [TrafficVerdict] = []
            for hour in 0..<24 {
                let base = start + Int64(day * 86_400 + hour * 3600)
                guard base < now - 60 else { continue }
                let busy = (8...22).contains(hour) ? 2 : 1
                for _ in 0..<(4 * busy + Int(random.next() % 4)) {
                    batch.append(playIntegrity(at: base + Int64(random.next() % 3000), roll: random.next() % 100))
                }
                for _ in 0..<(3 * busy + Int(random.next() % 3)) {
                    batch.append(appAttest(at: base + Int64(random.next() % 3000), roll: random.next() % 100))
                }
            }
            days.append(batch)
        }
        return days
    }

    static func playIntegrity(at: Int64, roll: UInt64) -> TrafficVerdict {
        var observed = ["packageName": packageName, "appRecognitionVerdict": "PLAY_RECOGNIZED", "appLicensingVerdict": "LICENSED"]
        switch roll {
        case 0..<76:
            // Genuine installs from Play: signed by Play's app-signing key, which is not registered.
            observed["certificateDigest"] = CertificateDigest.format(appSigningKeyDigest)
            return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "rejected", reasons: ["certificateMismatch"], observed: observed)
        case 76..<90:
            // Internal testers sideloading upload-signed builds.
            observed["certificateDigest"] = CertificateDigest.format(uploadKeyDigest)
            return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "verified", reasons: [], observed: observed)
        case 90..<96:
            observed["certificateDigest"] = CertificateDigest.format(appSigningKeyDigest)
            return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "rejected", reasons: ["certificateMismatch", "deviceIntegrityNotMet"], observed: observed)
        default:
            return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "forged", reasons: ["requestMismatch"], observed: [:])
        }
    }

    static func appAttest(at: Int64, roll: UInt64) -> TrafficVerdict {
        var observed = ["appId": appleAppID, "attestationEnvironment": "production"]
        // iOS 27 phones say how the build was signed: mostly App Store 4.2 and 4.3, some TestFlight 4.4 betas; older
        // phones say nothing.
        switch roll % 10 {
        case 0..<4: observed[AppAttestObservation.launchField] = "\(appleAppID)\tappStore\t4.3"
        case 4..<6: observed[AppAttestObservation.launchField] = "\(appleAppID)\tappStore\t4.2"
        case 6: observed[AppAttestObservation.launchField] = "\(appleAppID)\ttestFlight\t4.4"
        default: break
        }
        switch roll {
        case 0..<94:
            return TrafficVerdict(at: at, platform: "ios", provider: "app-attest", status: "verified", reasons: [], observed: observed)
        case 94..<98:
            return TrafficVerdict(at: at, platform: "ios", provider: "app-attest", status: "rejected", reasons: ["counterRegression"], observed: observed)
        default:
            return TrafficVerdict(at: at, platform: "ios", provider: "app-attest", status: "forged", reasons: ["assertionInvalid"], observed: observed)
        }
    }
}
