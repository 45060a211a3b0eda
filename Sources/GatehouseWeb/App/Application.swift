import Foundation
import Gatehouse
import HTTP
import HTTPServer

/// Gatehouse assembled: the database (migrated), the domain services, and the router with every route of the
/// management API, the ingest API, the dashboard and the operational endpoints. `respond` serves one request.
public final class Application: Sendable {
    public let configuration: Configuration
    public let services: Services
    public let logger: Logger
    public let metrics: Metrics
    let responder: @Sendable (Request) -> Response
    /// The routes registered, for the OpenAPI check.
    public let routes: [Router.Route]
    let upkeep = Upkeep()
    /// The first-admin setup link.
    public let setup: SetupLink
    /// Dashboard sign-in and its sessions.
    public let sessions: Sessions
    /// The device API (App Attest) and its background work.
    public let device: DeviceServices

    /// Paths whose rest is a secret, for the logger (``Logger/secretPathPrefixes``): the one-time setup link's token.
    public static let secretPathPrefixes = ["/setup/"]

    /// Opens (creating and migrating) the database, loads the master key and builds the routes.
    /// Throws with a message that says what to fix (a changed migration, a wrong master key…).
    public init(configuration: Configuration, logger: Logger, clock: Clock = .system) throws {
        self.configuration = configuration
        self.logger = logger
        let key = try Store.masterKey(environmentValue: configuration.masterKey, keyFilePath: configuration.keyFilePath)
        let (store, applied) = configuration.location.isPostgres
            ? try Store.open(postgresURL: configuration.database, migrationsDirectory: configuration.migrationsDirectory, masterKey: key,
                             poolSize: configuration.databasePool, durability: configuration.durability,
                             preparedStatements: configuration.databasePreparedStatements, clock: clock, waiting: { seconds in
                                 if seconds % 10 == 0 { logger.info("waiting for another server's migrations", ["seconds": .int(seconds)]) }
                             })
            : try Store.open(path: configuration.database, migrationsDirectory: configuration.migrationsDirectory,
                             masterKey: key, durability: configuration.durability, clock: clock)
        for name in applied { logger.info("migration applied", ["file": .string(name)]) }
        services = Services(store: store)
        try services.receiptKeys.prepare()
        metrics = Metrics()
        metrics.gauge("gatehouse_database_pending_writes", help: "Database writes waiting or running.") { store.pendingWrites }
        let setup = SetupLink()
        self.setup = setup
        let views = try Views(directory: configuration.templatesDirectory)
        sessions = try Sessions(store: store)
        let dashboard = Dashboard(services: services, sessions: sessions, views: views, configuration: configuration, setup: setup)
        device = try DeviceServices(configuration: configuration, services: services, logger: logger)
        let googleDecodes = device.playIntegrity.googleDecodes
        metrics.counters("gatehouse_play_integrity_google_decodes_total", help: "Calls to Google's decodeIntegrityToken by this server, per environment.",
                         label: "environment") { googleDecodes.totals }
        let receiptChecker = device.receiptChecker
        metrics.counters("gatehouse_receipts_consume_total",
                         help: "Receipt checks by this server that spent a receipt (consumed) or found it spent (refused).",
                         label: "result") {
            let totals = receiptChecker.totals
            return ["consumed": totals.consumed, "refused": totals.refusedConsumed]
        }
        var router = Router()
        Self.register(&router, services: services, configuration: configuration, metrics: metrics, dashboard: dashboard, device: device)
        routes = router.routes
        responder = router.responder(logger: logger)
    }

    /// Serves one request (used by the server and, without a socket, by tests).
    public func respond(_ request: Request) -> Response {
        responder(request)
    }
}
