import Foundation
import Gatehouse
import HTTPServer
import Synchronization

/// Background upkeep while serving: deletes verdicts past retention, old login failures and expired sessions, hourly; copies the
/// database's write-ahead log into its file as `CheckpointPacing` says (every 20 ms while commits come, every half
/// second on an idle server), so that commits do not stop to do it.
public final class Upkeep: Sendable {
    private let interval: TimeInterval
    private let pacing: Mutex<CheckpointPacing>
    private let job = PeriodicJob(name: "gh-upkeep")
    private let checkpoints = PeriodicJob(name: "gh-checkpoint")

    /// Upkeep every `interval` seconds, checkpoints paced by `pacing`.
    public init(interval: TimeInterval = 3600, pacing: CheckpointPacing = CheckpointPacing()) {
        self.interval = interval
        self.pacing = Mutex(pacing)
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
        // A failing checkpoint (a full disk) is logged when it starts failing or fails differently, not 50 times a second.
        let lastFailure = Mutex<String?>(nil)
        checkpoints.start { [self] in
            var failure: String?
            var log: (walPages: Int, copiedPages: Int)?
            do {
                log = try services.store.checkpoint()
            } catch {
                failure = "\(error)"
            }
            let changed = lastFailure.withLock { last in
                defer { last = failure }
                return last != failure
            }
            if changed, let failure { logger.error("checkpoint failed", ["error": .string(failure)]) }
            return pacing.withLock { $0.next(walPages: log?.walPages, copiedPages: log?.copiedPages) }
        }
    }

    /// The hourly work: verdicts past retention, old login failures, expired sessions.
    /// - Throws: `DatabaseError`.
    static func hourly(services: Services, sessions: Sessions, logger: Logger) throws {
        let deleted = try services.verdicts.prune()
        try services.admins.pruneLoginFailures()
        let ended = try sessions.pruneExpired()
        if deleted > 0 { logger.info("retention: deleted old verdicts", ["count": .int(deleted)]) }
        if ended > 0 { logger.info("sessions: deleted expired ones", ["count": .int(ended)]) }
    }

    func stop() {
        job.stop()
        checkpoints.stop()
    }
}
