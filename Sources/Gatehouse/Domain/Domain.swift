import Attestation
import Crypto

/// What every service's initialiser asks for, so that the composition root below is the only place a service is
/// built: its one initialiser is file-private to this file, so a service made in a test, a bench or a web file does
/// not compile (tests and benches get a domain from `Domain.open` or `DomainFixture`).
public struct Wiring: Sendable {
    fileprivate init() {}
}

/// Gatehouse's domain, opened once (``open(_:clock:random:log:)``; docs/architecture.md "The composition root"): the
/// store and one long-lived instance of each service, built here in order and nowhere else (``Wiring``), so that
/// services share instances instead of making their own; ``start()`` runs the background work of ``DomainJobs``,
/// ``stop()`` ends it and writes what is still queued. The web face and the command line are built over an opened
/// domain; neither builds a service nor sees the store.
public final class Domain: Sendable {
    /// What it was opened with.
    public let configuration: DomainConfiguration
    /// The store (database, group commit, revisions, secret box, clock): the services' alone, never the web's.
    let store: Store
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
    /// Android key attestation: registration, stored keys, Google's status list.
    public let keyAttestation: KeyAttestationService
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
    /// Alerts: webhook endpoints, their outbox and deliveries.
    public let webhooks: Webhooks
    /// The operator's commands on the database itself (migrations, backup, caches reset).
    public let database: DatabaseMaintenance
    /// The background work, in one list.
    public let jobs: DomainJobs

    init(configuration: DomainConfiguration, store: Store, roots: AppAttestRoots, receiptRoots: AppAttestRoots,
         keyAttestationRoots: KeyAttestationRoots, google: GoogleDecoder?,
         random: @escaping @Sendable () -> Double, log: DomainLog) throws {
        self.configuration = configuration
        self.store = store
        let w = Wiring()
        let hasher = PasswordHasher(parameters: configuration.passwordHashing)
        environments = Environments(w, store: store)
        keys = APIKeys(w, store: store)
        tokens = ManagementTokens(w, store: store)
        debugTokens = DebugTokens(w, store: store)
        audit = AuditLog(w, store: store)
        admins = Admins(w, store: store, hasher: hasher)
        sessions = try Sessions(w, store: store, hasher: hasher)
        verdicts = Verdicts(w, store: store)
        receiptKeys = ReceiptKeys(w, store: store)
        receipts = ReceiptIssuer(w, keys: receiptKeys)
        assessTally = AssessTally(w)
        recorder = VerdictRecorder(w, verdicts: verdicts, highWater: configuration.bufferHighWater) { error in
            log.error("device verdicts could not be written to traffic", ["error": "\(error)"])
        }
        appAttest = AppAttestService(w, store: store, environments: environments, keys: keys, roots: roots, receiptRoots: receiptRoots,
                                     recorder: recorder)
        receiptRefresher = try AppleReceiptRefresher(w, store: store, receiptRoots: receiptRoots, configuration: configuration,
                                                     random: random, log: log)
        keyAttestation = try KeyAttestationService(w, store: store, roots: keyAttestationRoots, recorder: recorder,
                                                   configuration: configuration, random: random, log: log)
        playIntegrity = PlayIntegrityService(w, store: store, environments: environments, google: google, recorder: recorder,
                                             googleDecodesPerAddress: configuration.googleDecodesPerAddress,
                                             googleUndecodablePerHour: configuration.googleUndecodablePerHour)
        assess = AssessService(w, store: store, appAttest: appAttest, playIntegrity: playIntegrity, keyAttestation: keyAttestation,
                               debugTokens: debugTokens,
                               recorder: recorder, receipts: receipts, tally: assessTally)
        receiptChecker = ReceiptChecker(w, store: store, keys: receiptKeys)
        enforcementOutcomes = EnforcementOutcomes(w, store: store, highWater: configuration.bufferHighWater) { error in
            log.error("enforcement outcomes could not be written", ["error": "\(error)"])
        }
        edge = EdgeCheck(w, store: store, receiptKeys: receiptKeys, checker: receiptChecker, outcomes: enforcementOutcomes)
        webhooks = try Webhooks(w, store: store, configuration: configuration, random: random, log: log)
        checklists = ChecklistService(w, verdicts: verdicts, keys: keys, debugTokens: debugTokens, enforcementOutcomes: enforcementOutcomes,
                                      webhooks: webhooks,
                                      refresher: receiptRefresher, keyAttestation: keyAttestation)
        keyCounts = AttestedKeyCounts(w, store: store)
        keyCheck = PlayIntegrityKeyCheck(w, store: store)
        database = DatabaseMaintenance(w, store: store, migrationsDirectory: configuration.migrationsDirectory)
        jobs = DomainJobs(store: store, recorder: recorder, outcomes: enforcementOutcomes, appAttest: appAttest, assess: assess,
                          playIntegrity: playIntegrity, keyAttestation: keyAttestation, receiptChecker: receiptChecker, verdicts: verdicts, refresher: receiptRefresher,
                          admins: admins, sessions: sessions,
                          alerts: webhooks.jobs(environments: environments, checklists: checklists, outcomes: enforcementOutcomes,
                                                               hold: configuration.webhookHold), log: log)
    }

    /// Now, on the domain's clock.
    public var clock: TimeSource { store.clock }

    /// Database writes waiting or running (`/metrics`).
    public var pendingWrites: Int { store.pendingWrites }

    /// How many times the caches of each followed table were told to forget since start (`/metrics`).
    public var cacheInvalidations: [String: Int] { store.cacheInvalidations }

    /// Runs the background work on its threads (a served process; once): every job of ``DomainJobs``, in its order.
    public func start() {
        jobs.start()
    }

    /// Ends the background work and writes every verdict and count still queued (the graceful-shutdown path; also for
    /// a domain whose jobs never ran on threads).
    public func stop() {
        jobs.stop()
    }
}
