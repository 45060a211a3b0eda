import Foundation
import Synchronization

/// The domain's background work, each on a ``PeriodicJob`` of its own: the minute purges (expired challenges, spent
/// nonces and key devices, spent and failed Play Integrity tokens, spent receipts), the hourly retention (verdicts,
/// login failures, sessions), the engine's maintenance (SQLite: checkpoints of its write-ahead log, run by the engine
/// itself) and, on a database other servers share, following their changes (woken by each change and at least once a
/// second). Started and stopped together, failures logged. Every job is idempotent, so each server of a shared
/// database runs them all, without a lease.
final class DomainJobs: Sendable {
    private let log: DomainLog
    private let purges = PeriodicJob(name: "gh-purges")
    private let hourly = PeriodicJob(name: "gh-upkeep")
    private let following = PeriodicJob(name: "gh-revisions")

    init(log: DomainLog) {
        self.log = log
    }

    func start(_ domain: Domain) {
        let log = self.log
        purges.start { [weak domain] in
            guard let domain else { return 60 }
            Self.purge(domain, log: log)
            return 60
        }
        hourly.start { [weak domain] in
            guard let domain else { return 3600 }
            do {
                let (verdicts, sessions) = try domain.runHourly()
                if verdicts > 0 { log.info("retention: deleted old verdicts", ["count": String(verdicts)]) }
                if sessions > 0 { log.info("sessions: deleted expired ones", ["count": String(sessions)]) }
            } catch {
                log.error("upkeep failed", ["error": "\(error)"])
            }
            return 3600
        }
        domain.store.startMaintenance { failure in
            if let failure { log.error("database maintenance failed (SQLite: a checkpoint)", ["error": failure]) }
        }
        guard domain.store.isShared else { return }
        let store = domain.store, failing = Atomic(false)
        following.start {
            do {
                try store.followOtherServers()
                if failing.exchange(false, ordering: .relaxed) {
                    log.info("following other servers' changes again: every cache was emptied")
                }
                return 0
            } catch {
                // Logged once per outage; the thread tries again each second.
                if !failing.exchange(true, ordering: .relaxed) {
                    log.error("cannot follow other servers' changes", ["error": "\(error)"])
                }
                return 1
            }
        }
    }

    /// The minute purges, each failure logged on its own.
    static func purge(_ domain: Domain, log: DomainLog) {
        do {
            try domain.appAttest.purgeExpired()
            try domain.assess.purge()
        } catch {
            log.error("purging expired challenges and nonces failed", ["error": "\(error)"])
        }
        do {
            try domain.playIntegrity.purgeExpired()
        } catch {
            log.error("purging spent and failed Play Integrity tokens failed", ["error": "\(error)"])
        }
        do {
            try domain.receiptChecker.purgeExpired()
        } catch {
            log.error("purging spent receipts failed", ["error": "\(error)"])
        }
    }

    func stop(_ domain: Domain) {
        purges.stop()
        hourly.stop()
        following.stop()
        domain.store.stopMaintenance()
    }
}
