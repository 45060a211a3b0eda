import Foundation
import Gatehouse
import HTTPServer

extension Application {
    /// Connects the running server: its open connections become a metrics gauge.
    public func attach(_ server: Server) {
        metrics.gauge("gatehouse_open_connections", help: "HTTP connections open.") { server.openConnections }
    }

    /// Lines to print at start-up: the one-time setup link on an install without admins.
    public func startupNotices(baseURL: String) throws -> [String] {
        var lines: [String] = []
        if configuration.demo, try Demo.populateIfFresh(domain) {
            lines.append("demo data: a \"Demo\" environment with a week of verdicts was created")
        }
        if try domain.admins.count() == 0 {
            let token = try setup.issue(now: domain.clock())
            lines.append("no admin yet: create the first one at \(baseURL)/setup/\(token) (valid for 1 hour, once)")
        }
        return lines
    }
}

extension Logger.Level {
    /// Levels by the name written in configuration.
    public static let allNames: [String: Logger.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
}
