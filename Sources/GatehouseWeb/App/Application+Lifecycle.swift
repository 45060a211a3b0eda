import Foundation
import Gatehouse
import HTTPServer

extension Application {
    /// Connects the running server: its open connections become a metrics gauge; background upkeep starts.
    public func attach(_ server: Server) {
        metrics.gauge("gatehouse_open_connections", help: "HTTP connections open.") { server.openConnections }
        upkeep.start(services: services, sessions: sessions, logger: logger)
        device.start(logger: logger)
    }

    /// Runs the hourly upkeep once now (what the background job does each hour).
    /// - Throws: `StorageError`.
    public func runHourlyUpkeep() throws {
        try Upkeep.hourly(services: services, sessions: sessions, logger: logger)
    }

    /// Stops background upkeep and writes the device verdicts still queued into traffic.
    public func stop() {
        upkeep.stop()
        device.stop()
    }

    /// Lines to print at start-up: the one-time setup link on an install without admins.
    public func startupNotices(baseURL: String) throws -> [String] {
        var lines: [String] = []
        if configuration.demo, try Demo.populateIfFresh(services.store) {
            lines.append("demo data: a \"Demo\" environment with a week of verdicts was created")
        }
        if try services.admins.count() == 0 {
            let token = try setup.issue(now: services.store.clock())
            lines.append("no admin yet: create the first one at \(baseURL)/setup/\(token) (valid for 1 hour, once)")
        }
        return lines
    }

    /// Applied and pending migrations.
    public func migrationStatus() throws -> (applied: [String], pending: [String]) {
        try services.store.migrationStatus(configuration.migrationsDirectory)
    }
}

extension Logger.Level {
    /// Levels by the name written in configuration.
    public static let allNames: [String: Logger.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
}
