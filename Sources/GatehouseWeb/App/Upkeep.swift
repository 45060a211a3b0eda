import Foundation
import Gatehouse
import HTTPServer

/// Background upkeep while serving: deletes verdicts past retention and old login failures, hourly.
public final class Upkeep: Sendable {
    private let job: PeriodicJob

    /// Upkeep every `interval` seconds.
    public init(interval: TimeInterval = 3600) {
        job = PeriodicJob(name: "gh-upkeep", interval: interval)
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
    }

    func stop() {
        job.stop()
    }
}
