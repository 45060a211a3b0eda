import Attestation
import Crypto
import Dispatch
import Foundation
import HTTPClient
import JSON
import Synchronization

/// Trades App Attest receipts for fresh ones at Apple (docs/device-api.md "Refresh"): each active key's receipt once a
/// day, spread over the day by key, no sooner than its not-before, never within an hour of registration; a few calls
/// at a time; one server per key across a cluster (a key is claimed by a conditional UPDATE before Apple is called).
/// The new receipt is checked as Apple's `RECEIPT` for the key, made within 5 minutes, and stored with its risk
/// metric; 304 and 404 keep the receipt; 401/403 mark the environment's DeviceCheck key refused (refreshes stop until
/// it changes); 429, 5xx and silence back off with jitter.
public final class AppleReceiptRefresher: Sendable {
    let store: Store
    let reader: AppAttestReceiptReader
    let client: HTTPClient
    /// Replaces Apple's two endpoints when set (`--app-attest-data-endpoint`).
    let endpoint: String?
    let mode: AppleReceiptRefreshMode
    /// The calls of a pass: on the passing thread and `concurrency - 1` helper jobs.
    private let work: SharedWork
    /// Where back-off jitter comes from (0…1; the domain's source, seeded in tests).
    private let random: @Sendable () -> Double
    private let counts = Mutex<[AppleReceiptRefreshResult: Int]>([:])
    private let log: DomainLog

    /// Apple's production endpoint.
    static let production = "https://data.appattest.apple.com"
    /// Apple's development (sandbox) endpoint.
    static let development = "https://data-development.appattest.apple.com"
    /// A key is active when an assertion by it was verified within this long (Apple keeps 30 days of data).
    static let activeWindow: Int64 = 30 * 86_400
    /// Keys taken per background run.
    static let batch = 200

    /// A refresher checking new receipts against `receiptRoots`, calling Apple (or `configuration`'s endpoint) through
    /// `configuration`'s CA file, `concurrency` calls at a time, backing off with jitter drawn from `random`.
    /// - Throws: `HTTPClientError` when the CA file cannot be used; `AppAttestRootsError` when the built-in root is broken.
    init(_: Wiring, store: Store, receiptRoots: AppAttestRoots, configuration: DomainConfiguration, random: @escaping @Sendable () -> Double,
         log: DomainLog, concurrency: Int = 4) throws {
        self.store = store
        reader = AppAttestReceiptReader(roots: receiptRoots)
        self.random = random
        client = try HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: .seconds(5), totalTimeout: .seconds(15), caFile: configuration.outboundCAFile,
            maxConcurrentCalls: concurrency, queueTimeout: .seconds(30), maxResponseBytes: 64 * 1024))
        endpoint = configuration.appAttestDataEndpoint
        mode = configuration.appAttestRefresh
        work = SharedWork(name: "gh-receipts", helpers: concurrency - 1)
        self.log = log
    }

    /// The helper jobs that make a pass's calls beside the passing thread (``DomainJobs``; they do nothing until a
    /// pass posts its keys).
    var helpers: [BackgroundJob] { work.jobs }

    /// The job refreshing in the background (``DomainJobs``; none with `--app-attest-refresh manual`): a batch of due
    /// keys a minute, the next batch at once while batches come full.
    var job: BackgroundJob? {
        guard mode == .background else { return nil }
        return BackgroundJob(name: "gh-receipts", run: { [self] _ in
            do {
                let tallies = try pass(environmentID: nil)
                return tallies.values.reduce(0) { $0 + $1.tried } >= Self.batch ? 1 : 60
            } catch {
                log.error("refreshing App Attest receipts failed", ["error": "\(error)"])
                return 60
            }
        })
    }

    /// Refreshes every active key of `environmentID` now (whatever its schedule), and answers the tally.
    /// - Throws: `StorageError`.
    public func refresh(environmentID: String) throws -> AppleReceiptRefreshTally {
        try pass(environmentID: environmentID)[environmentID] ?? AppleReceiptRefreshTally()
    }

    /// Refreshes since this process started, by result (`gatehouse_app_attest_receipt_refresh_total`).
    public var totals: [(result: AppleReceiptRefreshResult, count: Int)] {
        let counts = self.counts.withLock { $0 }
        return AppleReceiptRefreshResult.allCases.map { ($0, counts[$0] ?? 0) }
    }

    /// The refresher's state of `environmentID` (its last pass, a refused key).
    /// - Throws: `StorageError`.
    public func state(environmentID: String) throws -> AppleReceiptRefreshState {
        try store.read { db in try DeviceCheckKeysTable.refreshState(db, environmentID: environmentID) }
    }

    /// One pass: the candidates (of one environment, or every due key), claimed, traded at Apple a few at a time;
    /// the tally per environment.
    func pass(environmentID: String?) throws -> [String: AppleReceiptRefreshTally] {
        let now = store.clock()
        let candidates = try store.read { db in
            try AppleReceiptRefreshTable.candidates(db, environmentID: environmentID, now: now, activeSince: now - Self.activeWindow,
                                               limit: environmentID == nil ? Self.batch : 10_000)
        }
        var tallies: [String: AppleReceiptRefreshTally] = [:]
        if let environmentID { tallies[environmentID] = AppleReceiptRefreshTally() }
        let byEnvironment = Dictionary(grouping: candidates, by: \.environmentID)
        for (id, keys) in byEnvironment {
            guard let signer = try signer(environmentID: id, now: now) else { continue }
            // Each try's result, with Apple's status (the refusal's is recorded).
            let results = Mutex<[(result: AppleReceiptRefreshResult, status: Int?)]>([])
            // This thread and the refresher's helper jobs, each call mostly waiting on Apple.
            work.run(keys.count) { [self] index in
                // After a refusal the environment's other keys are not tried: the key is the same for all.
                if results.withLock({ $0.contains { $0.result == .refused } }) { return }
                if let tried = refresh(keys[index], signer: signer) {
                    results.withLock { $0.append(tried) }
                    counts.withLock { $0[tried.result, default: 0] += 1 }
                }
            }
            let tried = results.withLock { $0 }
            var tally = AppleReceiptRefreshTally()
            for (result, _) in tried { tally.add(result) }
            tallies[id] = tally
            let refused = tried.first { $0.result == .refused }.map { $0.status ?? 401 }
            try store.commit { db in try DeviceCheckKeysTable.recordPass(db, environmentID: id, at: now, refusedStatus: refused) }
            if refused != nil {
                log.warning("Apple refused the DeviceCheck key: App Attest receipts are not refreshed until it changes", ["environment": id])
            }
        }
        if let environmentID, byEnvironment[environmentID] == nil, try store.read({ db in try DeviceCheckKeysTable.sealed(db, environmentID: environmentID) }) != nil {
            try store.commit { db in try DeviceCheckKeysTable.recordPass(db, environmentID: environmentID, at: now, refusedStatus: nil) }
        }
        return tallies
    }

    /// The JWT maker of `environmentID`'s DeviceCheck key, nil when it has none or it does not open.
    private func signer(environmentID: String, now: Int64) throws -> DeviceCheckJWT? {
        let store = self.store
        guard let (id, sealed) = try store.read({ db in try DeviceCheckKeysTable.sealed(db, environmentID: environmentID) }) else { return nil }
        do {
            let pem = String(decoding: try store.open(sealed, environmentID: environmentID), as: UTF8.self)
            return DeviceCheckJWT(id: id, key: try ECPrivateKey(pem: pem))
        } catch {
            log.error("the DeviceCheck key does not open", ["environment": environmentID, "error": "\(error)"])
            return nil
        }
    }

    /// Claims and refreshes one key; nil when another server (or pass) holds it, or tried it since it was read.
    private func refresh(_ candidate: AppleReceiptRefreshTable.Candidate, signer: DeviceCheckJWT) -> (result: AppleReceiptRefreshResult, status: Int?)? {
        let now = store.clock()
        do {
            guard try store.commit({ db in
                try AppleReceiptRefreshTable.claim(db, candidate, now: now, until: now + AppleReceiptSchedule.claim)
            }) else { return nil }
        } catch {
            log.error("claiming an App Attest key for its receipt refresh failed", ["error": "\(error)"])
            return nil
        }
        let base = endpoint ?? (candidate.attestationEnvironment == .production ? Self.production : Self.development)
        let answer: OutboundResponse?
        do {
            let jwt = try signer.token(now: now)
            answer = try client.send(OutboundRequest(method: .post, url: base + "/v1/attestationData",
                                                     headers: [("Authorization", jwt), ("Content-Type", "application/octet-stream")],
                                                     body: Array(Base64.encode(candidate.receipt).utf8)))
        } catch {
            answer = nil
        }
        let result = judge(answer, candidate: candidate, now: now)
        do {
            try settle(result, candidate: candidate, now: now)
        } catch {
            log.error("storing an App Attest receipt refresh failed", ["error": "\(error)"])
        }
        return (result.result, answer?.status)
    }

    /// What Apple's answer means for the key (and, on 200, the receipt read).
    private func judge(_ answer: OutboundResponse?, candidate: AppleReceiptRefreshTable.Candidate, now: Int64)
        -> (result: AppleReceiptRefreshResult, receipt: (bytes: [UInt8], read: AppAttestReceipt)?) {
        guard let answer else { return (.failed, nil) }
        switch answer.status {
        case 200:
            let text = String(decoding: answer.body, as: UTF8.self).filter { !$0.isWhitespace }
            guard let bytes = Base64.decode(text) else { return (.failed, nil) }
            let check = reader.check(bytes, expecting: .refreshed(appId: candidate.appID, attestedKey: candidate.publicKey), at: now)
            guard check.isValid, let read = check.receipt else {
                log.warning("Apple's new App Attest receipt was not accepted", ["reasons": check.reasons.map(\.rawValue).joined(separator: ",")])
                return (.failed, nil)
            }
            return (.refreshed, (bytes, read))
        case 304: return (.unchanged, nil)
        case 404: return (.noData, nil)
        case 401, 403: return (.refused, nil)
        default: return (.failed, nil)
        }
    }

    /// Writes what the answer changes: the new receipt, or the next time to try.
    private func settle(_ judged: (result: AppleReceiptRefreshResult, receipt: (bytes: [UInt8], read: AppAttestReceipt)?),
                        candidate: AppleReceiptRefreshTable.Candidate, now: Int64) throws {
        let keyID = candidate.keyID, environmentID = candidate.environmentID
        switch judged.result {
        case .refreshed:
            guard let receipt = judged.receipt else { return }
            let next = AppleReceiptSchedule.next(keyID: keyID, now: now, notBefore: receipt.read.notBefore)
            try store.commit { db in
                try AppleReceiptRefreshTable.store(db, keyID: keyID, environmentID: environmentID, receipt: receipt.bytes, read: receipt.read, now: now, next: next)
            }
        case .unchanged, .noData:
            let next = AppleReceiptSchedule.next(keyID: keyID, now: now, notBefore: candidate.notBefore)
            try store.commit { db in try AppleReceiptRefreshTable.reschedule(db, keyID: keyID, next: next, failures: 0) }
        case .refused:
            // Tried again once the key changes (the refusal then goes): back to its schedule.
            let next = candidate.refreshAfter ?? now
            try store.commit { db in try AppleReceiptRefreshTable.reschedule(db, keyID: keyID, next: next, failures: candidate.failures) }
        case .failed:
            let failures = candidate.failures + 1
            let next = AppleReceiptSchedule.backOff(failures: failures, now: now, jitter: random())
            try store.commit { db in try AppleReceiptRefreshTable.reschedule(db, keyID: keyID, next: next, failures: failures) }
        }
    }
}

extension AppleReceiptRefresher {
    /// Risk metrics are kept this long (the Traffic tab compares two weeks; Apple's own window is 30 days).
    static let metricRetention: Int64 = 30 * 86_400

    /// Deletes risk metrics past retention (the hourly upkeep).
    /// - Throws: `StorageError`.
    func prune() throws {
        let before = store.clock() - Self.metricRetention
        _ = try store.purge(limit: 10_000) { db in try AppleReceiptRefreshTable.purgeMetrics(db, before: before, limit: 10_000) }
    }

    /// The share of keys per risk metric bucket in [`from`, `to`) of `environmentID` (each key's latest metric).
    /// - Throws: `StorageError`.
    public func metrics(environmentID: String, from: Int64, to: Int64) throws -> RiskMetricDistribution {
        RiskMetricDistribution(try store.read { db in try AppleReceiptRefreshTable.latestMetrics(db, environmentID: environmentID, from: from, to: to) })
    }
}
