import Synchronization

/// Every piece of the domain's background work, listed once below in the order it starts (it stops in the reverse
/// order): writing the recorded verdicts and the edge's outcome counts, the minute purges (expired challenges, spent
/// nonces and key devices, spent and failed Play Integrity tokens, spent receipts), the hourly retention (verdicts,
/// outcomes, risk metrics, login failures, sessions), Google's key attestation status list, the webhooks' deliveries and
/// the checklist changes they announce, Apple receipt refreshes (the helpers that make a pass's calls,
/// then the background pass), the engine's maintenance (SQLite
/// checkpoints) and, on a database other servers share, following their changes. Each job is idempotent, so every
/// server of a shared database runs them all without a lease.
///
/// In a served process each job runs on a thread of its own (``PeriodicJob``), from ``start()`` to ``stop()``. A test
/// starts no thread: it moves the domain's clock and calls ``runDue()``, which runs what has come due on the test's
/// thread, so no test sleeps.
public final class DomainJobs: Sendable {
    private let jobs: [BackgroundJob]
    private let threads: [PeriodicJob]
    private let clock: TimeSource
    /// For ``runDue()``: each job's next run on the domain's wall clock, in unix seconds (0: at once).
    private let due: Mutex<[Double]>

    init(store: Store, recorder: VerdictRecorder, outcomes: EnforcementOutcomes, appAttest: AppAttestService, assess: AssessService,
         playIntegrity: PlayIntegrityService, keyAttestation: KeyAttestationService, receiptChecker: ReceiptChecker, verdicts: Verdicts, refresher: AppleReceiptRefresher,
         admins: Admins, sessions: Sessions, alerts: [BackgroundJob], log: DomainLog) {
        var jobs = [
            recorder.job,
            outcomes.job,
            BackgroundJob(name: "gh-purges", run: { _ in
                log.failing("purging expired challenges and nonces failed") {
                    try appAttest.purgeExpired()
                    try assess.purge()
                }
                log.failing("purging spent and failed Play Integrity tokens failed") { try playIntegrity.purgeExpired() }
                log.failing("purging spent receipts failed") { try receiptChecker.purgeExpired() }
                return 60
            }),
            BackgroundJob(name: "gh-upkeep", run: { _ in
                log.failing("upkeep failed") {
                    let deleted = try verdicts.prune()
                    if deleted > 0 { log.info("retention: deleted old verdicts", ["count": String(deleted)]) }
                    try outcomes.prune()
                    try refresher.prune()
                    try admins.pruneLoginFailures()
                    let expired = try sessions.pruneExpired()
                    if expired > 0 { log.info("sessions: deleted expired ones", ["count": String(expired)]) }
                }
                return 3600
            }),
        ]
        jobs.append(keyAttestation.job)
        jobs += alerts
        jobs += refresher.helpers
        if let refreshing = refresher.job { jobs.append(refreshing) }
        if store.needsMaintenance {
            let lastFailure = Mutex<String?>(nil)
            jobs.append(BackgroundJob(name: "gh-checkpoint", run: { _ in
                var failure: String?, wait = 1.0
                do {
                    wait = try store.maintain()
                } catch {
                    failure = "\(error)"
                }
                // A failing checkpoint (a full disk) is told when it starts failing or fails differently, not 50
                // times a second.
                let changed = lastFailure.withLock { last in
                    defer { last = failure }
                    return last != failure
                }
                if changed, let failure { log.error("database maintenance failed (SQLite: a checkpoint)", ["error": failure]) }
                return wait
            }))
        }
        if store.isShared {
            let failing = Atomic(false)
            jobs.append(BackgroundJob(name: "gh-revisions", run: { onItsThread in
                do {
                    // On its thread it waits up to a second for another server's wake-up, then runs again at once.
                    try store.followOtherServers(waitMilliseconds: onItsThread ? 1_000 : 0)
                    if failing.exchange(false, ordering: .relaxed) {
                        log.info("following other servers' changes again: every cache was emptied")
                    }
                    return onItsThread ? 0 : 1
                } catch {
                    // Logged once per outage; tried again each second.
                    if !failing.exchange(true, ordering: .relaxed) {
                        log.error("cannot follow other servers' changes", ["error": "\(error)"])
                    }
                    return 1
                }
            }))
        }
        self.jobs = jobs
        threads = jobs.map(PeriodicJob.init)
        clock = store.clock
        due = Mutex(Array(repeating: 0, count: jobs.count))
    }

    /// The jobs' names, in the order they start.
    public var names: [String] { jobs.map(\.name) }

    /// Starts every job on its thread, in order (a served process).
    func start() {
        for thread in threads { thread.start() }
    }

    /// Stops the jobs in the reverse order, each after its run in progress, and lets each do its last work (the
    /// verdicts and counts still waiting are written), whether it ran on a thread or not.
    func stop() {
        for (thread, job) in zip(threads, jobs).reversed() {
            thread.stop()
            job.atStop?()
        }
    }

    /// Runs, on the calling thread and in order, each job whose time has come on the domain's clock or that was woken,
    /// and answers their names: how tests drive the background work (they move the test clock instead of sleeping).
    /// Not for a domain whose jobs run on threads.
    @discardableResult
    public func runDue() -> [String] {
        var ran: [String] = []
        for (index, job) in jobs.enumerated() {
            let now = Double(clock())
            let woken = job.wakeup?.take() ?? false
            guard woken || due.withLock({ $0[index] }) <= now else { continue }
            let wait = job.run(false)
            due.withLock { $0[index] = Double(clock()) + wait }
            ran.append(job.name)
        }
        return ran
    }
}

extension DomainLog {
    /// Runs `body`, logging what it throws as `message`.
    func failing(_ message: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            self.error(message, ["error": "\(error)"])
        }
    }
}
