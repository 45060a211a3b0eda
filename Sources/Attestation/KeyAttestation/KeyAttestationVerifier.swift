import Crypto

/// The Android key attestation verifier (docs/device-api.md "Android Key Attestation"), pure and bounded like the App
/// Attest and Play Integrity ones: a chain of DER certificates, the challenge the phone was given, the environment's
/// policy and registered apps, Google's status list as last fetched, and the time in; a verdict with every reason
/// found, the key and what was observed out. Where the contract is silent it does what Google's own verifier
/// (`android/keyattestation`) does: issuers need not be marked CA, and only the key's certificate may carry the
/// attestation extension.
public struct KeyAttestationVerifier: Sendable {
    /// The pinned roots.
    public let roots: KeyAttestationRoots

    /// The chain's bounds.
    public static let chainLengths = 2...10
    public static let maxCertificateBytes = 8 * 1024
    /// The extension Remote Key Provisioning puts in its intermediates.
    public static let provisioningOID = "1.3.6.1.4.1.11129.2.1.30"

    public init(roots: KeyAttestationRoots) {
        self.roots = roots
    }

    /// An app the environment registers: its package and its signing certificates' SHA-256 digests.
    public struct RegisteredApp: Sendable, Equatable {
        public var packageName: String
        public var digests: [[UInt8]]

        public init(packageName: String, digests: [[UInt8]]) {
            self.packageName = packageName
            self.digests = digests
        }
    }

    /// Judges `chain` (the key's certificate first) for `challenge` under `policy`; `apps` nil leaves the
    /// attestation application id observed, not judged (the offline command without `--package`); `statusList` nil
    /// means no list was ever fetched (nothing refused for it).
    public func verify(chain: [[UInt8]], challenge: [UInt8], policy: KeyAttestationPolicy, apps: [RegisteredApp]?,
                       statusList: KeyAttestationStatusList?, at now: Int64) -> KeyAttestationResult {
        var reasons: [Reason] = []
        var observed = KeyAttestationObservation()
        observed.revocation = statusList == nil ? "unknown" : "good"
        if !policy.enabled { reasons.append(.keyAttestationDisabled) }

        // The chain: its shape, each link's signature, a pinned root at its end.
        guard Self.chainLengths.contains(chain.count), chain.allSatisfy({ !$0.isEmpty && $0.count <= Self.maxCertificateBytes }) else {
            return KeyAttestationResult(reasons: reasons + [.chainMalformed], observed: observed)
        }
        var certificates: [Certificate] = []
        for der in chain {
            guard let certificate = try? Certificate(der: der) else {
                return KeyAttestationResult(reasons: reasons + [.chainMalformed], observed: observed)
            }
            certificates.append(certificate)
        }
        // The last certificate is a pinned root itself (the chain includes it), or is signed by one.
        let last = certificates[certificates.count - 1]
        let pinned = roots.issuers.first { $0.der == last.publicKeyDER } ?? roots.issuers.first { last.isSigned(by: $0) }
        let includesRoot = roots.issuers.contains { $0.der == last.publicKeyDER }
        if let pinned { observed.root = KeyAttestationRoots.fingerprint(pinned.der) } else { reasons.append(.chainInvalid) }
        for index in 0..<(certificates.count - 1) where !certificates[index].isSigned(by: certificates[index + 1]) {
            reasons.append(.chainInvalid)
        }
        // Only the key's certificate may carry the attestation extension: a genuine attested key's certificate used as
        // the issuer of a made-up one is the known forgery.
        if certificates.dropFirst().contains(where: { $0.extensionValue(oid: KeyDescription.oid) != nil }) {
            reasons.append(.chainExtended)
        }
        let intermediates = certificates.dropFirst().dropLast(includesRoot ? 1 : 0)
        let provisioned = intermediates.contains { $0.extensionValue(oid: Self.provisioningOID) != nil }
        observed.provisioning = provisioned ? "rkp" : "factory"
        // Remote Key Provisioning's intermediates are short-lived and checked; factory ones outlive their dates.
        if provisioned, intermediates.contains(where: { now < $0.notBefore || now > $0.notAfter }) {
            reasons.append(.chainExpired)
        }
        if let statusList {
            for certificate in certificates {
                guard let serial = certificate.serialHex, let status = statusList.entries[serial] else { continue }
                switch status {
                case .revoked:
                    observed.revocation = "revoked"
                    if policy.revocation == .refuse { reasons.append(.certificateRevoked) }
                case .suspended:
                    if observed.revocation != "revoked" { observed.revocation = "suspended" }
                    if policy.revocation == .refuse { reasons.append(.certificateSuspended) }
                }
            }
        }

        // The key description, from the key's certificate.
        let leaf = certificates[0]
        guard let value = leaf.extensionValue(oid: KeyDescription.oid), let description = try? KeyDescription(der: value) else {
            return KeyAttestationResult(reasons: reasons + [.chainMalformed], observed: observed)
        }
        observed.read(description)
        if !constantTimeEquals(description.attestationChallenge, challenge) { reasons.append(.challengeInvalid) }
        let level = min(description.attestationSecurityLevel, description.keyMintSecurityLevel)
        if level == .software {
            reasons.append(.softwareKey)
        } else if level < policy.securityLevel {
            reasons.append(Reason(.rejected, "securityLevel:\(level.name)"))
        }
        let hardware = description.hardwareEnforced
        if hardware.origin != AuthorizationList.originGenerated { reasons.append(.keyImported) }
        let publicKey = try? ECPublicKey(derSubjectPublicKeyInfo: leaf.publicKeyDER)
        if !(hardware.purposes ?? []).contains(AuthorizationList.purposeSign) || hardware.algorithm != AuthorizationList.algorithmEC
            || hardware.ecCurve != AuthorizationList.curveP256 || publicKey == nil {
            reasons.append(.keyUnsuitable)
        }
        if let trust = hardware.rootOfTrust {
            switch trust.verifiedBootState {
            case .verified: break
            case .selfSigned:
                if !policy.bootKeys.contains(Hex.encode(trust.verifiedBootKey)) { reasons.append(.bootKeyUnknown) }
            case .unverified, .failed: reasons.append(.bootUnverified)
            }
            if policy.requireLocked && !trust.deviceLocked { reasons.append(.bootloaderUnlocked) }
        } else {
            reasons.append(.bootUnverified)
        }
        if let minimum = policy.minimumPatchLevel, (hardware.osPatchLevel ?? 0) < minimum {
            reasons.append(Reason(.rejected, "patchLevel:\(observed.osPatchLevel ?? "none")"))
        }
        var packageName: String?
        if let apps, let application = description.softwareEnforced.attestationApplicationID ?? hardware.attestationApplicationID {
            let matching = apps.filter { app in application.packages.contains { $0.name == app.packageName } }
            packageName = matching.first { app in app.digests.contains { application.signatureDigests.contains($0) } }?.packageName
            if matching.isEmpty {
                reasons.append(.appIdMismatch)
            } else if !matching.contains(where: { app in app.digests.contains { application.signatureDigests.contains($0) } }) {
                reasons.append(.certificateMismatch)
            }
            for package in application.packages {
                if let least = policy.minimumVersionCode[package.name], Int64(package.version) < least {
                    reasons.append(Reason(.rejected, "versionCode:\(package.version)"))
                }
            }
        } else if apps != nil {
            reasons.append(.appIdMismatch)
        }
        var result = KeyAttestationResult(reasons: reasons, observed: observed, publicKey: publicKey == nil ? nil : leaf.publicKeyDER)
        result.serials = certificates.compactMap(\.serialHex)
        result.packageName = packageName
        return result
    }
}

/// A key attestation's judgement: the verdict, the attested key (DER SubjectPublicKeyInfo, when the certificate holds
/// a P-256 key) with its id, and what was observed.
public struct KeyAttestationResult: Sendable {
    public var verdict: Verdict
    public var publicKey: [UInt8]?
    public var observed: KeyAttestationObservation
    /// The chain's certificates' serials (lowercase hex, no leading zeros), the key's first: what a status list
    /// fetched later is checked against when the key is used.
    public var serials: [String] = []
    /// The registered package the attestation application id named with one of its registered digests (nil: none).
    public var packageName: String?

    /// The key's id: base64url SHA-256 of its SubjectPublicKeyInfo.
    public var keyID: String? {
        publicKey.map { Base64.encode(SHA256.hash($0), alphabet: .urlSafe, padded: false) }
    }

    init(reasons: [Reason], observed: KeyAttestationObservation, publicKey: [UInt8]? = nil) {
        verdict = Verdict(reasons: reasons)
        self.observed = observed
        self.publicKey = publicKey
    }
}

/// What a key attestation showed, as `observed` sends it.
public struct KeyAttestationObservation: Sendable, Equatable {
    public var securityLevel: String?
    public var keyMintSecurityLevel: String?
    public var keyMintVersion: Int?
    public var attestationVersion: Int?
    public var verifiedBootState: String?
    /// Lowercase hex.
    public var bootKey: String?
    public var deviceLocked: Bool?
    public var osVersion: Int?
    /// `YYYY-MM`.
    public var osPatchLevel: String?
    /// `YYYY-MM-DD`, or `YYYY-MM` when the day is absent.
    public var vendorPatchLevel: String?
    public var bootPatchLevel: String?
    public var packages: [AttestationApplicationID.Package] = []
    /// Upper-case hex pairs joined by `:`.
    public var certificateDigests: [String] = []
    /// `rkp` or `factory`.
    public var provisioning: String?
    /// Lowercase hex SHA-256 of the pinned root's key.
    public var root: String?
    /// `good`, `revoked`, `suspended`, `unknown`.
    public var revocation = "unknown"
    /// Tags of the key description the contract does not name.
    public var unknownTags: [Int] = []

    public init() {}

    mutating func read(_ description: KeyDescription) {
        securityLevel = description.attestationSecurityLevel.name
        keyMintSecurityLevel = description.keyMintSecurityLevel.name
        keyMintVersion = description.keyMintVersion
        attestationVersion = description.attestationVersion
        let hardware = description.hardwareEnforced
        if let trust = hardware.rootOfTrust {
            verifiedBootState = trust.verifiedBootState.name
            bootKey = Hex.encode(trust.verifiedBootKey)
            deviceLocked = trust.deviceLocked
        }
        osVersion = hardware.osVersion
        osPatchLevel = hardware.osPatchLevel.map(Self.patchLevel)
        vendorPatchLevel = hardware.vendorPatchLevel.map(Self.patchLevel)
        bootPatchLevel = hardware.bootPatchLevel.map(Self.patchLevel)
        if let application = description.softwareEnforced.attestationApplicationID ?? hardware.attestationApplicationID {
            packages = application.packages
            certificateDigests = application.signatureDigests.map { Hex.encode($0, uppercase: true, separator: ":") }
        }
        unknownTags = description.softwareEnforced.unknownTags + hardware.unknownTags
    }

    /// YYYYMM as `YYYY-MM`, YYYYMMDD as `YYYY-MM-DD`.
    static func patchLevel(_ value: Int) -> String {
        let digits = String(value)
        guard digits.count == 6 || digits.count == 8 else { return digits }
        let year = digits.prefix(4), month = digits.dropFirst(4).prefix(2), day = digits.dropFirst(6)
        return day.isEmpty ? "\(year)-\(month)" : "\(year)-\(month)-\(day)"
    }
}

extension Reason {
    public static let keyAttestationDisabled = Reason(.rejected, "keyAttestationDisabled")
    public static let chainMalformed = Reason(.forged, "chainMalformed")
    public static let chainInvalid = Reason(.forged, "chainInvalid")
    public static let chainExtended = Reason(.forged, "chainExtended")
    public static let chainExpired = Reason(.rejected, "chainExpired")
    public static let certificateRevoked = Reason(.rejected, "certificateRevoked")
    public static let certificateSuspended = Reason(.rejected, "certificateSuspended")
    public static let softwareKey = Reason(.forged, "softwareKey")
    public static let keyImported = Reason(.rejected, "keyImported")
    public static let keyUnsuitable = Reason(.rejected, "keyUnsuitable")
    public static let bootKeyUnknown = Reason(.rejected, "bootKeyUnknown")
    public static let bootUnverified = Reason(.rejected, "bootUnverified")
    public static let bootloaderUnlocked = Reason(.rejected, "bootloaderUnlocked")
    public static let appIdMismatch = Reason(.rejected, "appIdMismatch")
    /// An assessment names a key no registration stored in the environment.
    public static let keyUnknown = Reason(.forged, "keyUnknown")
}
