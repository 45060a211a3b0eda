import Attestation

/// Gatehouse's domain, opened once (DESIGN.md "The domain's composition"): the store and one long-lived instance of
/// each service, built together so that services share instances instead of making their own; ``start()`` runs the
/// background work (the verdict recorder, the minute purges, the hourly retention, the engine's maintenance and, on a
/// shared database, following the other servers), ``stop()`` ends it and writes the verdicts still queued. The web
/// face and the command line are built over an opened domain; neither builds a service.
public final class Domain: Sendable {
    /// What it was opened with.
    public let configuration: DomainConfiguration
    /// The store (database, group commit, revisions, secret box, clock).
    public let store: Store
    public let environments: Environments
    public let keys: APIKeys
    /// Management tokens (automation's bearer credentials).
    public let tokens: ManagementTokens
    /// Debug tokens of the environments (simulators, emulators, CI).
    public let debugTokens: DebugTokens
    public let audit: AuditLog
    public let admins: Admins
    /// Dashboard sign-in and its sessions.
    public let sessions: Sessions
    public let verdicts: Verdicts
    /// The setup checklists of the environments.
    public let checklists: ChecklistService
    /// The receipt signing keys (JWKS, rotation).
    public let receiptKeys: ReceiptKeys
    /// Issues receipts under the current receipt key.
    public let receipts: ReceiptIssuer
    /// The last hour's assessed requests with and without proof (the assess service counts; the Overview reads).
    public let assessTally: AssessTally
    /// Device verdicts batched into traffic.
    public let recorder: VerdictRecorder
    /// App Attest: challenges, key registration, assertions.
    public let appAttest: AppAttestService
    /// App Attest receipts traded at Apple for fresh ones with their risk metric.
    public let receiptRefresher: AppleReceiptRefresher
    /// Play Integrity: local decoding, decoding through Google, the replay store.
    public let playIntegrity: PlayIntegrityService
    /// Signed requests judged whole, with their receipts.
    public let assess: AssessService
    /// Receipts checked for backends, and spent once when asked.
    public let receiptChecker: ReceiptChecker
    /// Judged calls by route and outcome: counted at the edge, reported by backends.
    public let enforcementOutcomes: EnforcementOutcomes
    /// The check reverse proxies ask before passing a call to the app's API.
    public let edge: EdgeCheck
    /// Attested keys counted per environment (the Apps tab).
    public let keyCounts: AttestedKeyCounts
    /// Candidate Play Integrity keys tried on recent failures.
    public let keyCheck: PlayIntegrityKeyCheck
    let jobs: DomainJobs

    init(configuration: DomainConfiguration, store: Store, roots: AppAttestRoots, receiptRoots: AppAttestRoots, google: GoogleDecoder?,
         log: DomainLog) throws {
        self.configuration = configuration
        self.store = store
        environments = Environments(store: store)
        keys = APIKeys(store: store)
        tokens = ManagementTokens(store: store)
        debugTokens = DebugTokens(store: store)
        audit = AuditLog(store: store)
        admins = Admins(store: store)
        sessions = try Sessions(store: store)
        verdicts = Verdicts(store: store)
        receiptKeys = ReceiptKeys(store: store)
        receipts = ReceiptIssuer(keys: receiptKeys)
        assessTally = AssessTally()
        recorder = VerdictRecorder(verdicts: verdicts) { error in
            log.error("device verdicts could not be written to traffic", ["error": "\(error)"])
        }
        appAttest = AppAttestService(store: store, environments: environments, keys: keys, roots: roots, receiptRoots: receiptRoots,
                                     recorder: recorder)
        receiptRefresher = try AppleReceiptRefresher(store: store, receiptRoots: receiptRoots, configuration: configuration, log: log)
        playIntegrity = PlayIntegrityService(store: store, environments: environments, google: google, recorder: recorder,
                                             googleDecodesPerAddress: configuration.googleDecodesPerAddress,
                                             googleUndecodablePerHour: configuration.googleUndecodablePerHour)
        assess = AssessService(store: store, appAttest: appAttest, playIntegrity: playIntegrity, debugTokens: debugTokens,
                               recorder: recorder, receipts: receipts, tally: assessTally)
        receiptChecker = ReceiptChecker(store: store, keys: receiptKeys)
        enforcementOutcomes = EnforcementOutcomes(store: store) { error in
            log.error("enforcement outcomes could not be written", ["error": "\(error)"])
        }
        edge = EdgeCheck(store: store, receiptKeys: receiptKeys, checker: receiptChecker, outcomes: enforcementOutcomes)
        checklists = ChecklistService(verdicts: verdicts, keys: keys, debugTokens: debugTokens, enforcementOutcomes: enforcementOutcomes,
                                      refresher: receiptRefresher)
        keyCounts = AttestedKeyCounts(store: store)
        keyCheck = PlayIntegrityKeyCheck(store: store)
        jobs = DomainJobs(log: log)
    }

    /// Now, on the domain's clock.
    public var clock: TimeSource { store.clock }

    /// Database writes waiting or running (`/metrics`).
    public var pendingWrites: Int { store.pendingWrites }

    /// How many times the caches of each followed table were told to forget since start (`/metrics`).
    public var cacheInvalidations: [String: Int] { store.cacheInvalidations }

    /// Runs the background work (once): the verdict recorder, the minute purges, the hourly retention, the engine's
    /// maintenance and, on a shared database, following the other servers.
    public func start() {
        recorder.start()
        enforcementOutcomes.start()
        receiptRefresher.start()
        jobs.start(self)
    }

    /// Ends the background work and writes every verdict still queued (the graceful-shutdown path).
    public func stop() {
        jobs.stop(self)
        receiptRefresher.stop()
        recorder.stop()
        enforcementOutcomes.stop()
    }

    /// Makes the first receipt signing key when there is none (what a server needs before it answers; a one-shot
    /// command does not call it).
    /// - Throws: `StorageError`, `CryptoError`.
    public func prepareReceiptKey() throws {
        try receiptKeys.prepare()
    }

    /// Applied and pending migrations.
    /// - Throws: `MigrationError`, `StorageError`.
    public func migrationStatus() throws -> (applied: [String], pending: [String]) {
        try store.migrationStatus(configuration.migrationsDirectory)
    }

    /// Runs the hourly upkeep once now (what the background job does each hour): verdicts past retention, old login
    /// failures, expired sessions. Returns the verdicts and sessions deleted.
    /// - Throws: `StorageError`.
    @discardableResult
    public func runHourly() throws -> (verdicts: Int, sessions: Int) {
        let deleted = try verdicts.prune()
        try enforcementOutcomes.prune()
        try receiptRefresher.prune()
        try admins.pruneLoginFailures()
        return (deleted, try sessions.pruneExpired())
    }
}
