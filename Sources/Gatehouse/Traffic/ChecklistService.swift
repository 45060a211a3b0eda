import Attestation
import Storage

/// The setup checklists (docs/architecture.md "The setup checklist"): each environment's configuration judged against the
/// week's rollups, with the live secret keys, today's calls to Google and the active debug tokens. Evaluations are
/// kept per environment (``RollupCache``) until the hour's rollups or what the checklist reads changes.
public final class ChecklistService: Sendable {
    let store: Store
    let verdicts: Verdicts
    /// The endpoints, for `webhooks.failing`.
    let webhooks: Webhooks
    let keys: APIKeys
    let debugTokens: DebugTokens
    let enforcementOutcomes: EnforcementOutcomes
    let refresher: AppleReceiptRefresher
    let keyAttestation: KeyAttestationService
    /// The week's rollups and the last evaluation per environment; follows the rollups.
    let cache = RollupCache()

    /// The checklists over the domain's shared services: one per domain (``Domain``), as its cache follows the store's
    /// writes for as long as the store lives.
    init(_: Wiring, verdicts: Verdicts, keys: APIKeys, debugTokens: DebugTokens, enforcementOutcomes: EnforcementOutcomes, webhooks: Webhooks,
         refresher: AppleReceiptRefresher,
         keyAttestation: KeyAttestationService) {
        self.refresher = refresher
        self.keyAttestation = keyAttestation
        self.enforcementOutcomes = enforcementOutcomes
        store = verdicts.store
        self.verdicts = verdicts
        self.keys = keys
        self.debugTokens = debugTokens
        self.webhooks = webhooks
        store.follow(.trafficRollups, cache.invalidate)
    }

    /// The setup checklist of an environment now: its configuration against the week's rollups.
    public func report(for environment: Environment) throws -> ChecklistReport {
        let now = store.clock()
        let evaluations = try evaluate([environment], activeSecretKeys: try activeSecretKeys(now: now), googleDecodes: try googleDecodesToday(now: now),
                                       debugTokens: try debugTokens.activeNames(now: now), now: now)
        var report = evaluations[environment.id]?.report
            ?? Checklist.evaluate(configuration: ChecklistConfiguration(), rollups: [], now: now)
        // The webhooks' item is not cached with the rest: it follows the deliveries, not the environment or its rollups.
        report.items = Checklist.ordered(report.items + [Checklist.webhooks(try webhooks.list(), environmentID: environment.id)])
        return report
    }

    /// How many checklist items fail and warn in each environment (the environments list's badges). Served from the
    /// cache without copying any report while neither the environment, its live secret keys nor its rollups changed.
    public func counts(for environments: [Environment]) throws -> [String: ChecklistCounts] {
        let now = store.clock()
        let secrets = try activeSecretKeys(now: now)
        let decodes = try googleDecodesToday(now: now)
        let debugTokens = try self.debugTokens.activeNames(now: now)
        let appAttest = try appAttestFigures(environments, now: now)
        let fetched = keyAttestation.statusListFetchedAt
        var counts = cache.counts(environments.map { environment in
            (environment.id, Self.key(environment, secrets: secrets, decodes: decodes, debugTokens: debugTokens, appAttest: appAttest,
                                      statusListFetchedAt: fetched, now: now))
        }, now: now)
        let missing = environments.filter { counts[$0.id] == nil }
        if !missing.isEmpty {
            for (id, evaluation) in try evaluate(missing, activeSecretKeys: secrets, googleDecodes: decodes, debugTokens: debugTokens, now: now) {
                counts[id] = evaluation.counts
            }
        }
        let endpoints = try webhooks.list()
        if !endpoints.isEmpty {
            for environment in environments {
                switch Checklist.webhooks(endpoints, environmentID: environment.id).status {
                case .fail: counts[environment.id]?.failing += 1
                case .warn: counts[environment.id]?.warning += 1
                case .ok: break
                }
            }
        }
        return counts
    }

    /// Live secret keys per environment now, counted from the expiries cached since keys last changed.
    private func activeSecretKeys(now: Int64) throws -> [String: Int] {
        let expiries = try keys.secretKeyExpiriesByEnvironment()
        return expiries.mapValues { $0.reduce(0) { $0 + ($1 > now ? 1 : 0) } }
    }

    /// Today's (Pacific) calls to Google's decodeIntegrityToken and the most tokens of one package, per environment
    /// (two queries for all).
    private func googleDecodesToday(now: Int64) throws -> [String: QuotaToday] {
        try store.read { db in
            let decodes = try GoogleDecodeCountsTable.all(db, now: now), tokens = try PlayIntegrityTokenCountsTable.largestToday(db, now: now)
            let capped = try GoogleUndecodableHoursTable.cappedHours(db, now: now)
            return Dictionary(uniqueKeysWithValues: Set(decodes.keys).union(tokens.keys).union(capped.keys).map { id in
                (id, QuotaToday(decodes: decodes[id] ?? 0, tokens: tokens[id] ?? 0, capped: capped[id]))
            })
        }
    }

    /// What an environment used of its daily quota today.
    struct QuotaToday {
        var decodes: Int
        var tokens: Int
        /// The last hour of the day the cap on calls for undecodable tokens refused tokens.
        var capped: CappedHour?
    }

    /// What a cached checklist of `environment` depends on besides the hour's rollups.
    static func key(_ environment: Environment, secrets: [String: Int], decodes: [String: QuotaToday], debugTokens: [String: [String]],
                    appAttest: [String: RollupCache.AppAttestFigures], statusListFetchedAt: Int64?, now: Int64) -> RollupCache.ChecklistKey {
        let used = decodes[environment.id].map { max($0.decodes, $0.tokens) } ?? 0
        return RollupCache.ChecklistKey(revision: environment.revision, activeSecretKeys: secrets[environment.id] ?? 0,
                                        googleQuotaPercent: used * 100 / max(1, environment.playIntegrity.dailyQuota),
                                        googleUndecodableCapped: decodes[environment.id]?.capped,
                                        activeDebugTokens: debugTokens[environment.id] ?? [], appAttest: appAttest[environment.id],
                                        statusListHours: environment.keyAttestation.enabled ? statusListFetchedAt.map { (now - $0) / 3_600 } : nil)
    }

    /// Each environment's checklist: from the cache when its key and the hour's rollups are unchanged, otherwise
    /// evaluated (reading the week's rollups only when they are not cached) and cached.
    private func evaluate(_ environments: [Environment], activeSecretKeys secrets: [String: Int], googleDecodes decodes: [String: QuotaToday],
                          debugTokens: [String: [String]], now: Int64) throws -> [String: RollupCache.Evaluation] {
        let appAttest = try appAttestFigures(environments, now: now)
        let entries = cache.entries(environments.map(\.id), now: now)
        let fetched = keyAttestation.statusListFetchedAt
        var changed: [String: RollupCache.Entry] = [:]
        var evaluations: [String: RollupCache.Evaluation] = [:]
        for environment in environments {
            guard var entry = entries[environment.id] else { continue }
            let key = Self.key(environment, secrets: secrets, decodes: decodes, debugTokens: debugTokens, appAttest: appAttest,
                               statusListFetchedAt: fetched, now: now)
            if var cached = entry.evaluation, cached.key == key {
                // The same hour's sums and the same setup: only the window's ends move.
                cached.report.windowFrom = now - ChecklistThresholds().windowSeconds
                cached.report.windowTo = now
                evaluations[environment.id] = cached
                continue
            }
            var configuration = ChecklistConfiguration(
                kind: environment.kind.rawValue,
                attackMode: environment.attackMode,
                androidApps: environment.androidApps.map {
                    AndroidAppSetup(packageName: $0.packageName, certificateDigests: $0.certificateDigests.map(CertificateDigest.format), outsidePlay: $0.outsidePlay)
                },
                appleAppIds: environment.appleAppIDs,
                serviceAccountSet: environment.playIntegrity.serviceAccountSet,
                localKeysSet: environment.playIntegrity.localSet,
                activeSecretKeys: key.activeSecretKeys,
                googleDecodesToday: decodes[environment.id]?.decodes ?? 0,
                dailyQuota: environment.playIntegrity.dailyQuota,
                activeDebugTokens: key.activeDebugTokens,
                // Written with the rollups (declared as them), so a cached evaluation is dropped when they move.
                enforcementRoutes: environment.enforcement.routes.isEmpty ? []
                    : try enforcementOutcomes.week(environmentID: environment.id, settings: environment.enforcement).routes
            )
            configuration.tokensToday = decodes[environment.id]?.tokens ?? 0
            configuration.googleUndecodableCapped = key.googleUndecodableCapped
            configuration.minimumVersionCodes = environment.playIntegrity.policy.minimumVersionCode
            configuration.keyAttestationEnabled = environment.keyAttestation.enabled
            configuration.keyAttestationBootKeys = environment.keyAttestation.bootKeys
            configuration.keyAttestationMinimumPatchLevel = environment.keyAttestation.minimumPatchLevel.map(KeyAttestationPolicy.patchLevelText)
            configuration.statusListAge = fetched.map { now - $0 }
            configuration.validationCategories = environment.appAttest.policy.validationCategories.map { $0.sorted().map(\.label) }
            configuration.deviceCheckKey = environment.appAttest.deviceCheckKey
            configuration.receiptRefresh = key.appAttest?.refresh ?? AppleReceiptRefreshState()
            configuration.riskMetricsThisWeek = key.appAttest?.thisWeek ?? RiskMetricDistribution([])
            configuration.riskMetricsPreviousWeek = key.appAttest?.previousWeek ?? RiskMetricDistribution([])
            let rollups = try entry.rollups ?? verdicts.weekRollups(environmentID: environment.id, now: now)
            let report = Checklist.evaluate(configuration: configuration, rollups: rollups, now: now)
            let evaluation = RollupCache.Evaluation(key: key, report: report, counts: ChecklistCounts(report))
            entry.rollups = rollups
            entry.evaluation = evaluation
            changed[environment.id] = entry
            evaluations[environment.id] = evaluation
        }
        cache.keep(changed)
        return evaluations
    }

    /// The refresher's state and the two weeks' risk metrics of the environments holding a DeviceCheck key (the
    /// others have neither).
    private func appAttestFigures(_ environments: [Environment], now: Int64) throws -> [String: RollupCache.AppAttestFigures] {
        var figures: [String: RollupCache.AppAttestFigures] = [:]
        for environment in environments where environment.appAttest.deviceCheckKey != nil {
            let week = ChecklistThresholds().windowSeconds
            figures[environment.id] = RollupCache.AppAttestFigures(
                refresh: try refresher.state(environmentID: environment.id),
                thisWeek: try refresher.metrics(environmentID: environment.id, from: now - week, to: now + 1),
                previousWeek: try refresher.metrics(environmentID: environment.id, from: now - 2 * week, to: now - week))
        }
        return figures
    }
}
