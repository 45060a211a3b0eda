import Attestation
import Crypto
import Storage

/// The server side of App Attest (docs/device-api.md "Challenges", "App Attest"): loads what a judgement needs (the
/// environment's registration, the challenge, the attested key), calls the pure verifier, commits the state change
/// (challenge consumed, key stored, counter advanced) through group commit before answering, and records the verdict
/// into traffic.
public final class AppAttestService: Sendable {
    let store: Store
    let verifier: AppAttestVerifier
    let recorder: VerdictRecorder
    let environments: Environments
    let keys: APIKeys
    /// Attested keys with their parsed public keys and counter windows, for assertions; follows the attested keys
    /// (written only when an environment is deleted: registrations and counter commits keep the cache themselves).
    let attestedKeys = AttestedKeyCache()

    /// A service judging attestations against `roots` and their receipts against `receiptRoots`, reading environments and keys from the domain's shared services and
    /// recording into `recorder`: one per domain (``Domain``), as its cache follows the store's writes for as long as
    /// the store lives.
    init(_: Wiring, store: Store, environments: Environments, keys: APIKeys, roots: AppAttestRoots, receiptRoots: AppAttestRoots,
                recorder: VerdictRecorder) {
        self.store = store
        self.verifier = AppAttestVerifier(roots: roots, receiptRoots: receiptRoots)
        self.recorder = recorder
        self.environments = environments
        self.keys = keys
        store.follow(.attestedKeys, attestedKeys.invalidate)
        let cache = attestedKeys
        store.followAttestedKeys { environmentID in cache.invalidate(environmentID: environmentID) }
    }

    /// The environment a device's `apiKey` (a public key) names, and the key itself.
    /// - Throws: `DomainError.unauthenticated` for a key unknown, revoked or expired; `StorageError`.
    public func authenticate(apiKey: String) throws -> (key: APIKey, environment: Environment) {
        let key = try keys.authenticatePublic(apiKey)
        do {
            return (key, try environments.get(key.environmentID))
        } catch DomainError.notFound {
            throw DomainError.unauthenticated("apiKey is not one of this server's public keys")
        }
    }

    /// Issues a challenge for `environment`, committed before it is returned.
    /// - Throws: `CryptoError` (no randomness), `StorageError`.
    public func issueChallenge(for environment: Environment) throws -> IssuedChallenge {
        let challenge = try ChallengesTable.make()
        let expiresAt = store.clock() + ChallengesTable.lifetime
        let environmentID = environment.id
        try store.commit { db in
            try ChallengesTable.insert(db, challenge: challenge, environmentID: environmentID, expiresAt: expiresAt)
        }
        return IssuedChallenge(challenge: challenge, expiresAt: expiresAt)
    }

    /// Judges a key registration: verifies the attestation, consumes the challenge (every attempt spends it) and,
    /// when verified, stores the key — committed before this returns — then records the verdict into traffic.
    /// - Throws: `StorageError` when the state cannot be committed (nothing is answered then).
    public func register(in environment: Environment, keyID: [UInt8], challenge: String, attestation: [UInt8]) throws -> RegistrationOutcome {
        let now = store.clock()
        let request = AttestationRequest(attestation: attestation, keyId: keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        let result = verifier.verifyAttestation(request, registration: Self.registration(environment), now: now)
        let stored: AttestedKey? = result.verdict.isVerified ? result.publicKey.flatMap { publicKey in
            result.appId.flatMap { appID in
                result.environment.map { kind in
                    AttestedKey(keyID: keyID, environmentID: environment.id, publicKey: publicKey.x962, appID: appID,
                                attestationEnvironment: kind, counter: .fresh, createdAt: now, lastUsedAt: nil)
                }
            }
        } : nil
        // The receipt is kept only when it was accepted: it is what the refresher sends Apple.
        let receipt = result.receiptCheck.flatMap { check -> StoredAppleReceipt? in
            guard check.isValid, let bytes = result.receipt, let read = check.receipt else { return nil }
            return StoredAppleReceipt(bytes: bytes, notBefore: read.notBefore, expiresAt: read.expirationTime)
        }
        let refreshAfter = AppleReceiptSchedule.first(keyID: keyID, registeredAt: now)
        let environmentID = environment.id
        let verdict = try store.commit { db -> Verdict in
            var verdict = result.verdict
            guard try ChallengesTable.consume(db, challenge: challenge, environmentID: environmentID, now: now) else {
                return verdict.adding(.challengeInvalid)
            }
            if verdict.isVerified {
                guard let stored else { return .of(.attestationInvalid) }
                if try !AttestedKeysTable.insert(db, stored, receipt: receipt, refreshAfter: refreshAfter) {
                    verdict = verdict.adding(.keyAlreadyRegistered)
                }
            }
            return verdict
        }
        // The registered app id it matched, or else the one Apple certified: an admin learns the typo in a team id.
        let appID = result.appId ?? result.attestedAppId
        let observed = AppAttestObservation(extensions: result.extensions, receipt: result.receiptCheck)
        record(verdict, environmentID: environment.id, appID: appID, kind: result.environment, observed: observed, at: now)
        return RegistrationOutcome(verdict: verdict, keyID: keyID, appID: appID, attestationEnvironment: result.environment, observed: observed)
    }

    /// Deletes expired challenges and past days' key devices; returns how many rows.
    /// - Throws: `StorageError`.
    @discardableResult
    public func purgeExpired(limit: Int = 10_000) throws -> Int {
        let now = store.clock()
        return try store.purge(limit: limit) { db in
            try ChallengesTable.purge(db, now: now, limit: limit) + KeyDevicesTable.purge(db, now: now, limit: limit)
        }
    }

    /// What the verifier needs of an environment.
    static func registration(_ environment: Environment) -> AppAttestRegistration {
        AppAttestRegistration(appIds: environment.appleAppIDs, isProduction: environment.kind == .production, policy: environment.appAttest.policy)
    }

    /// Records a judgement into the environment's traffic (written within the recorder's interval).
    func record(_ verdict: Verdict, environmentID: String, appID: String?, kind: AttestationEnvironment?, observed observation: AppAttestObservation,
                at now: Int64) {
        var observed = observation.traffic
        if let launch = observation.launch(appID: appID) { observed[AppAttestObservation.launchField] = launch }
        if let appID { observed["appId"] = appID }
        if let kind { observed["attestationEnvironment"] = kind.rawValue }
        recorder.record(TrafficVerdict(at: now, platform: "ios", provider: "app-attest", status: verdict.status.rawValue,
                                reasons: verdict.reasons, observed: observed),
                        environmentID: environmentID)
    }
}
