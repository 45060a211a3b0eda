import Foundation
import Gatehouse
import HTTPServer
import Synchronization

/// Background upkeep while serving: deletes verdicts past retention, old login failures and expired sessions, hourly;
/// the database engine's own background work (SQLite: checkpoints of its write-ahead log); and, on a database other
/// servers share, following their changes (``Store/followOtherServers(waitMilliseconds:)``, woken by each change and
/// at least once a second). Started and stopped together, failures logged.
public final class Upkeep: Sendable {
    private let interval: TimeInterval
    private let job = PeriodicJob(name: "gh-upkeep")
    private let following = PeriodicJob(name: "gh-revisions")
    /// The store whose maintenance runs, once started.
    private let store = Mutex<Store?>(nil)

    /// Upkeep every `interval` seconds.
    public init(interval: TimeInterval = 3600) {
        self.interval = interval
    }

    func start(services: Services, sessions: Sessions, logger: Logger) {
        job.start { [interval] in
            do {
                try Self.hourly(services: services, sessions: sessions, logger: logger)
            } catch {
                logger.error("upkeep failed", ["error": .string("\(error)")])
            }
            return interval
        }
        services.store.startMaintenance { failure in
            if let failure { logger.error("database maintenance failed (SQLite: a checkpoint)", ["error": .string(failure)]) }
        }
        if services.store.isShared {
            let store = services.store, failing = Atomic(false)
            following.start {
                do {
                    try store.followOtherServers()
                    if failing.exchange(false, ordering: .relaxed) {
                        logger.info("following other servers' changes again: every cache was emptied")
                    }
                    return 0
                } catch {
                    // Logged once per outage; the thread tries again each second.
                    if !failing.exchange(true, ordering: .relaxed) {
                        logger.error("cannot follow other servers' changes", ["error": .string("\(error)")])
                    }
                    return 1
                }
            }
        }
        store.withLock { $0 = services.store }
    }

    /// The hourly work: verdicts past retention, old login failures, expired sessions.
    static func hourly(services: Services, sessions: Sessions, logger: Logger) throws {
        let deleted = try services.verdicts.prune()
        try services.admins.pruneLoginFailures()
        let ended = try sessions.pruneExpired()
        if deleted > 0 { logger.info("retention: deleted old verdicts", ["count": .int(deleted)]) }
        if ended > 0 { logger.info("sessions: deleted expired ones", ["count": .int(ended)]) }
    }

    func stop() {
        job.stop()
        following.stop()
        store.withLock { $0?.stopMaintenance() }
    }
}
