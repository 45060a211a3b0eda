import Foundation
import Gatehouse
import HTTPServer
import Synchronization

/// Background upkeep while serving: deletes verdicts past retention and old login failures, hourly.
public final class Upkeep: Sendable {
    private let stopped = DispatchSemaphore(value: 0)
    private let running = Mutex(false)
    let interval: TimeInterval

    public init(interval: TimeInterval = 3600) {
        self.interval = interval
    }

    func start(services: Services, logger: Logger) {
        let first = running.withLock { r in
            defer { r = true }
            return !r
        }
        guard first else { return }
        let thread = Thread { [self] in
            repeat {
                do {
                    let deleted = try services.verdicts.prune()
                    try services.admins.pruneLoginFailures()
                    if deleted > 0 { logger.info("retention: deleted old verdicts", ["count": .int(deleted)]) }
                } catch {
                    logger.error("upkeep failed", ["error": .string("\(error)")])
                }
            } while stopped.wait(timeout: .now() + interval) == .timedOut
        }
        thread.name = "gh-upkeep"
        thread.start()
    }

    func stop() {
        if running.withLock({ $0 }) { stopped.signal() }
    }
}
