import Foundation
import Gatehouse
import GatehouseWeb
import HTTPServer

/// `gatehouse serve`: open and migrate, listen, run until SIGTERM/SIGINT, then shut down gracefully.
enum Serve {
    /// The options `serve` takes: the domain's and the web's.
    static var helpText: String { Configuration.helpText }

    /// Parses the options and serves until a stop signal.
    static func run(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        let (configuration, _) = try Configuration.parse(arguments, environment: environment)
        // Block the stop signals before any thread starts (the server's and the upkeep thread inherit the mask),
        // so only `runUntilSignalled` below takes them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        // One server per SQLite file; any number share a PostgreSQL database.
        if !configuration.location.isPostgres { try ServerLock.acquire(database: configuration.domain.database) }
        var logger = Logger.standardError(minimumLevel: Logger.Level.allNames[configuration.logLevel] ?? .info)
        logger.secretPathPrefixes = Application.secretPathPrefixes
        let domain = try Domain.open(configuration.domain, log: logger.domainLog)
        try domain.receiptKeys.prepare()
        let application = try Application(domain: domain, configuration: configuration, logger: logger)
        let server = Server(configuration: ServerConfiguration(host: configuration.host, port: configuration.port, workerThreads: configuration.workers),
                            responder: application.respond, logger: logger)
        try server.start()
        application.attach(server)
        domain.start()
        let base = "http://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(server.boundPort)"
        print("gatehouse listening on \(base)")
        for line in try application.startupNotices(baseURL: base) { print(line) }
        fflush(nil)

        try server.runUntilSignalled()
        domain.stop()
        print("gatehouse stopped")
        return 0
    }
}
