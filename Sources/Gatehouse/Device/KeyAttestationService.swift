import Attestation
import Crypto
import HTTPClient
import JSON
import Storage
import Synchronization

/// The server side of Android key attestation (docs/device-api.md "Android Key Attestation"): judges a registration
/// with the pure verifier under the environment's policy, spends the challenge and stores a verified key in one
/// commit before answering; judges an assessment's signature by a stored key (the app still registered, no
/// certificate of its chain revoked since); keeps Google's status list, fetched once across servers every hour.
public final class KeyAttestationService: Sendable {
    let store: Store
    let verifier: KeyAttestationVerifier
    let recorder: VerdictRecorder
    /// Stored keys with their parsed public keys, by key id; follows the table as a whole (an environment deleted) and
    /// each environment's keys (a key registered again).
    let keys: ReadCache<[UInt8], Entry>
    /// Google's status list as this server last read it from the database, with the time it was fetched.
    private let statusList = Mutex<(list: KeyAttestationStatusList, fetchedAt: Int64)?>(nil)
    private let client: HTTPClient
    /// Where the status list is fetched (`--key-attestation-status-url`).
    let statusURL: String
    /// Where back-off jitter comes from (0…1).
    private let random: @Sendable () -> Double
    private let log: DomainLog

    /// Google's status list.
    public static let googleStatusURL = "https://android.googleapis.com/attestation/status"
    /// How often the list is fetched, in seconds.
    static let statusInterval: Int64 = 3_600
    /// A list older than this is a checklist item, in seconds.
    public static let statusStaleAfter: Int64 = 86_400
    /// How long a server's claim to fetch lasts, in seconds (a server that dies holding it is replaced after that).
    static let claimSeconds: Int64 = 120

    /// A stored key and its parsed public key.
    struct Entry: Sendable {
        var key: KeyAttestedKey
        let publicKey: ECPublicKey
    }

    /// A service judging chains against `roots`, recording into `recorder`, fetching the status list from
    /// `configuration`'s URL through its CA file with back-off jitter from `random`.
    /// - Throws: `HTTPClientError` when the CA file cannot be used.
    init(_: Wiring, store: Store, roots: KeyAttestationRoots, recorder: VerdictRecorder, configuration: DomainConfiguration,
         random: @escaping @Sendable () -> Double, log: DomainLog) throws {
        self.store = store
        verifier = KeyAttestationVerifier(roots: roots)
        self.recorder = recorder
        self.random = random
        self.log = log
        statusURL = configuration.keyAttestationStatusURL
        client = try HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: .seconds(5), totalTimeout: .seconds(30), caFile: configuration.outboundCAFile,
            maxConcurrentCalls: 1, queueTimeout: .seconds(30), maxResponseBytes: 32 * 1024 * 1024,
            allowsPlainHTTP: configuration.keyAttestationStatusURL.lowercased().hasPrefix("http://")))
        let keys: ReadCache<[UInt8], Entry> = store.cache(limit: 10_000, following: .attestedKeys)
        store.followAttestedKeys { environmentID in keys.invalidate { $0.key.environmentID == environmentID } }
        self.keys = keys
    }

    // MARK: - Registration

    /// Judges a registration: verifies `chain` for `challenge` under the environment's policy against its registered
    /// apps and the status list, spends the challenge (every attempt spends it) and, when verified, stores the key
    /// (a key the environment stored before is judged again and its row replaced), committed before this returns;
    /// then records the verdict into traffic.
    /// - Throws: `StorageError` when the state cannot be committed (nothing is answered then).
    public func register(in environment: Environment, challenge: String, chain: [[UInt8]]) throws -> KeyAttestationResult {
        let now = store.clock()
        var result = verifier.verify(chain: chain, challenge: Array(challenge.utf8), policy: environment.keyAttestation,
                                     apps: Self.apps(environment), statusList: currentStatusList(), at: now)
        let stored = result.verdict.isVerified ? Self.key(result, environmentID: environment.id, now: now) : nil
        let environmentID = environment.id, verified = result.verdict.isVerified
        let reasons = try store.commit { db -> [Reason] in
            guard try ChallengesTable.consume(db, challenge: challenge, environmentID: environmentID, now: now) else { return [.challengeInvalid] }
            guard let stored else { return verified ? [.keyUnsuitable] : [] }
            let holder = try KeyAttestationKeysTable.environment(db, keyID: stored.keyID)
            if let holder, holder != environmentID { return [.keyAlreadyRegistered] }
            if holder != nil { db.wroteAttestedKeys(of: environmentID) }
            return try KeyAttestationKeysTable.store(db, stored) ? [] : [.keyAlreadyRegistered]
        }
        result.verdict = reasons.reduce(result.verdict) { $0.adding($1) }
        record(result.verdict, environmentID: environment.id, observed: Self.traffic(result.observed, packageName: result.packageName), at: now)
        return result
    }

    /// The key a verified result stores, or nil when it named no key or package (not verified then).
    static func key(_ result: KeyAttestationResult, environmentID: String, now: Int64) -> KeyAttestedKey? {
        guard let publicKey = result.publicKey, let packageName = result.packageName,
              let level = result.observed.securityLevel, let keyMint = result.observed.keyMintSecurityLevel else { return nil }
        return KeyAttestedKey(keyID: SHA256.hash(publicKey), environmentID: environmentID, publicKey: publicKey, packageName: packageName,
                              certificateDigests: result.observed.certificateDigests.compactMap { Hex.decode($0.filter { $0 != ":" }) },
                              serials: result.serials, securityLevel: Self.weaker(keyMint, level) ? keyMint : level,
                              bootState: result.observed.verifiedBootState, bootKey: result.observed.bootKey,
                              osPatchLevel: result.observed.osPatchLevel, createdAt: now)
    }

    /// The weaker of two security level names (`software` < `tee` < `strongbox`).
    static func weaker(_ a: String, _ b: String) -> Bool {
        let order = ["software", "tee", "strongbox"]
        return (order.firstIndex(of: a) ?? 0) < (order.firstIndex(of: b) ?? 0)
    }

    /// The environment's Android apps as the verifier judges the attestation application id against.
    static func apps(_ environment: Environment) -> [KeyAttestationVerifier.RegisteredApp] {
        environment.androidApps.map { KeyAttestationVerifier.RegisteredApp(packageName: $0.packageName, digests: $0.certificateDigests) }
    }

    // MARK: - Use

    /// A signature judged: the verdict and what traffic records of it.
    struct Judgement: Sendable {
        var verdict: Verdict
        var observed: [String: String]
    }

    /// Judges `signature` (DER ECDSA-SHA256) of `message` by the stored key `keyID` of `environment`, for the app
    /// `packageName` the request names: `forged` `keyUnknown` for a key the environment did not store, `forged`
    /// `signatureInvalid` for a signature that does not verify; `rejected` when the provider is off
    /// (`keyAttestationDisabled`), the key's package is no longer registered or not with the key's certificate
    /// (`appIdMismatch`, `certificateMismatch`), the request names another app (`packageMismatch`), or a certificate
    /// of its chain was revoked or suspended since under `revocation: refuse`. Commits nothing.
    /// - Throws: `StorageError` when the key cannot be read.
    func judge(in environment: Environment, keyID: [UInt8], signature: [UInt8], message: [UInt8], packageName: String) throws -> Judgement {
        let environmentID = environment.id
        let found = try keys.value(keyID) {
            try store.read { db in try KeyAttestationKeysTable.load(db, keyID: keyID, environmentID: environmentID) }.flatMap { key in
                (try? ECPublicKey(derSubjectPublicKeyInfo: key.publicKey)).map { Entry(key: key, publicKey: $0) }
            }
        }
        guard let entry = found, entry.key.environmentID == environmentID else {
            return Judgement(verdict: Verdict(reasons: [.keyUnknown]), observed: [:])
        }
        let key = entry.key
        var reasons: [Reason] = []
        if !entry.publicKey.isValidSignature(signature, format: .der, for: message) { reasons.append(.signatureInvalid) }
        let policy = environment.keyAttestation
        if !policy.enabled { reasons.append(.keyAttestationDisabled) }
        if let app = environment.androidApps.first(where: { $0.packageName == key.packageName }) {
            if !app.certificateDigests.contains(where: key.certificateDigests.contains) { reasons.append(.certificateMismatch) }
        } else {
            reasons.append(.appIdMismatch)
        }
        if packageName != key.packageName { reasons.append(.packageMismatch) }
        var revocation = "unknown"
        if let list = currentStatusList() {
            revocation = "good"
            for serial in key.serials {
                switch list.entries[serial] {
                case .revoked?:
                    revocation = "revoked"
                    if policy.revocation == .refuse { reasons.append(.certificateRevoked) }
                case .suspended?:
                    if revocation != "revoked" { revocation = "suspended" }
                    if policy.revocation == .refuse { reasons.append(.certificateSuspended) }
                case nil: break
                }
            }
        }
        var observed = ["packageName": key.packageName, "securityLevel": key.securityLevel, "revocation": revocation]
        if let state = key.bootState { observed["verifiedBootState"] = state }
        if let bootKey = key.bootKey { observed["bootKey"] = bootKey }
        if let level = key.osPatchLevel { observed["osPatchLevel"] = level }
        return Judgement(verdict: Verdict(reasons: reasons), observed: observed)
    }

    // MARK: - The status list

    /// Google's status list as this server last read it; nil before any was fetched (nothing is refused for it).
    func currentStatusList() -> KeyAttestationStatusList? {
        statusList.withLock { $0?.list }
    }

    /// When the status list this server judges by was fetched (unix seconds), or nil.
    public var statusListFetchedAt: Int64? {
        statusList.withLock { $0?.fetchedAt }
    }

    /// The job keeping the status list (``DomainJobs``): each minute it reads the list another server fetched, and when
    /// the stored one is an hour old (or none was ever fetched) fetches it, once across servers.
    var job: BackgroundJob {
        BackgroundJob(name: "gh-key-status") { [self] _ in
            log.failing("keeping Google's key attestation status list failed") { try refreshStatusList() }
            return 60
        }
    }

    /// Reads the stored list when it moved, then fetches a new one when it is due and this server wins the claim.
    /// Returns whether this server fetched (successfully or not).
    /// - Throws: `StorageError`.
    @discardableResult
    public func refreshStatusList() throws -> Bool {
        let now = store.clock()
        let state = try store.read { db in try KeyAttestationStatusTable.state(db) }
        try follow(state)
        let due = state.fetchedAt.map { now - $0 >= Self.statusInterval } ?? true
        guard due, state.claimedUntil <= now else { return false }
        guard try store.write({ db in try KeyAttestationStatusTable.claim(db, seen: state, until: now + Self.claimSeconds) }) else { return false }
        do {
            let answer = try client.send(OutboundRequest(method: .get, url: statusURL, headers: [("Accept", "application/json")]))
            guard answer.status == 200 else { throw StatusListFetchError("Google answered \(answer.status)") }
            let text = String(decoding: answer.body, as: UTF8.self)
            let list: KeyAttestationStatusList
            do {
                list = try KeyAttestationStatusList.parse(try JSONParser.parse(answer.body))
            } catch {
                throw StatusListFetchError("the answer is not a status list: \(error)")
            }
            try store.write { db in try KeyAttestationStatusTable.fetched(db, body: text, now: now) }
            statusList.withLock { $0 = (list, now) }
            log.info("Google's key attestation status list fetched", ["entries": String(list.entries.count)])
        } catch {
            // Back off 1, 2, 4 … minutes up to an hour, with jitter; any server may take the next try.
            let wait = Double(min(Self.statusInterval, 60 << min(state.failures, 6))) * (0.5 + random() / 2)
            log.warning("fetching Google's key attestation status list failed", ["error": "\(error)", "retryInSeconds": String(Int(wait))])
            try store.write { db in try KeyAttestationStatusTable.failed(db, error: "\(error)", retryAt: now + Int64(wait)) }
        }
        return true
    }

    /// Reads the stored list when it is not the one this server judges by.
    private func follow(_ state: KeyAttestationStatusTable.State) throws {
        guard let fetchedAt = state.fetchedAt, fetchedAt != statusListFetchedAt else { return }
        guard let stored = try store.read({ db in try KeyAttestationStatusTable.body(db) }) else { return }
        let list = try KeyAttestationStatusList.parse(try JSONParser.parse(Array(stored.body.utf8)))
        statusList.withLock { $0 = (list, stored.fetchedAt) }
    }

    /// Why a fetch of the status list failed (stored as `last_error`; no secret in it).
    struct StatusListFetchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - Traffic

    /// What traffic records of a registration.
    static func traffic(_ observed: KeyAttestationObservation, packageName: String?) -> [String: String] {
        var fields: [String: String] = [:]
        if let level = observed.securityLevel { fields["securityLevel"] = level }
        if let state = observed.verifiedBootState { fields["verifiedBootState"] = state }
        if let key = observed.bootKey { fields["bootKey"] = key }
        if let level = observed.osPatchLevel { fields["osPatchLevel"] = level }
        if let name = packageName ?? observed.packages.first?.name { fields["packageName"] = name }
        if let digest = observed.certificateDigests.first { fields["certificateDigest"] = digest }
        fields["revocation"] = observed.revocation
        fields[Verdicts.stageField] = Verdicts.registrationStage
        return fields
    }

    /// Records a registration's judgement into the environment's traffic.
    private func record(_ verdict: Verdict, environmentID: String, observed: [String: String], at now: Int64) {
        recorder.record(TrafficVerdict(at: now, platform: "android", provider: Self.provider, status: verdict.status.rawValue,
                                       reasons: verdict.reasons, observed: observed),
                        environmentID: environmentID)
    }

    /// The provider's wire name.
    public static let provider = Provider.keyAttestation
}
