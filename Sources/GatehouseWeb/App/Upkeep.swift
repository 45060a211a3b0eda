import Foundation
import Gatehouse
import HTTPServer
import Synchronization

/// Background upkeep while serving: deletes verdicts past retention and old login failures, hourly; copies the
/// database's write-ahead log into its file every `checkpointInterval`, so that commits do not stop to do it.
public final class Upkeep: Sendable {
    private let job: PeriodicJob
    private let checkpoints: PeriodicJob

    /// Upkeep every `interval` seconds, checkpoints every `checkpointInterval` seconds.
    public init(interval: TimeInterval = 3600, checkpointInterval: TimeInterval = 0.02) {
        job = PeriodicJob(name: "gh-upkeep", interval: interval)
        checkpoints = PeriodicJob(name: "gh-checkpoint", interval: checkpointInterval)
    }

    func start(services: Services, logger: Logger) {
        job.start {
            do {
                let deleted = try services.verdicts.prune()
                try services.admins.pruneLoginFailures()
                if deleted > 0 { logger.info("retention: deleted old verdicts", ["count": .int(deleted)]) }
            } catch {
                logger.error("upkeep failed", ["error": .string("\(error)")])
            }
        }
        // A failing checkpoint (a full disk) is logged when it starts failing or fails differently, not 50 times a second.
        let lastFailure = Mutex<String?>(nil)
        checkpoints.start {
            var failure: String?
            do {
                try services.store.checkpoint()
            } catch {
                failure = "\(error)"
            }
            let changed = lastFailure.withLock { last in
                defer { last = failure }
                return last != failure
            }
            if changed, let failure { logger.error("checkpoint failed", ["error": .string(failure)]) }
        }
    }

    func stop() {
        job.stop()
        checkpoints.stop()
    }
}
