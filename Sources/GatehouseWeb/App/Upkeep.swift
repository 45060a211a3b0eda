import Foundation
import Gatehouse
import HTTPServer

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
        checkpoints.start {
            do {
                try services.store.checkpoint()
            } catch {
                logger.error("checkpoint failed", ["error": .string("\(error)")])
            }
        }
    }

    func stop() {
        job.stop()
        checkpoints.stop()
    }
}
