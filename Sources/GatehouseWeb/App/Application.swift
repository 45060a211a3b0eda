import Foundation
import Gatehouse
import HTTP
import HTTPServer
import SQLite

/// Gatehouse assembled: the database (migrated), the domain services, and the router with every route of the
/// management API, the ingest API, the dashboard and the operational endpoints. `respond` serves one request.
public final class Application: Sendable {
    public let configuration: Configuration
    public let services: Services
    public let logger: Logger
    public let metrics: Metrics
    let responder: @Sendable (Request) -> Response
    let migrator: Migrator
    /// The routes registered, for the OpenAPI check.
    public let routes: [Router.Route]
    let upkeep = Upkeep()
    /// The first-admin setup link.
    public let setup: SetupLink
    /// The device API (App Attest) and its background work.
    public let device: DeviceVerification

    /// Opens (creating and migrating) the database, loads the master key and builds the routes.
    /// Throws with a message that says what to fix (a changed migration, a wrong master key…).
    public init(configuration: Configuration, logger: Logger, clock: @escaping @Sendable () -> Int64 = Store.systemClock) throws {
        self.configuration = configuration
        self.logger = logger
        let database = try Database(path: configuration.database)
        migrator = Migrator(directory: configuration.migrationsDirectory)
        let applied = try migrator.migrate(database)
        for name in applied { logger.info("migration applied", ["file": .string(name)]) }
        let key = try Store.masterKey(environmentValue: configuration.masterKey, keyFilePath: configuration.keyFilePath)
        let store = try Store(database: database, masterKey: key, clock: clock)
        services = Services(store: store)
        metrics = Metrics()
        metrics.gauge("gatehouse_database_pending_writes", help: "Database writes waiting or running.") { database.pendingWrites }
        let setup = SetupLink()
        self.setup = setup
        let views = try Views(directory: configuration.templatesDirectory)
        let dashboard = Dashboard(services: services, sessions: try Sessions(store: store), views: views, configuration: configuration, setup: setup)
        device = try DeviceVerification(configuration: configuration, services: services, logger: logger)
        var router = Router()
        Self.register(&router, services: services, configuration: configuration, metrics: metrics, migrator: migrator, dashboard: dashboard, device: device)
        routes = router.routes
        responder = router.responder(logger: logger)
    }

    /// Serves one request (used by the server and, without a socket, by tests).
    public func respond(_ request: Request) -> Response {
        responder(request)
    }
}
