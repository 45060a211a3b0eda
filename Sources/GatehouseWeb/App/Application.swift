import Foundation
import Gatehouse
import HTTP
import HTTPServer

/// The web face over an opened ``Domain``: the views, the rate limiters and the router with every route of the
/// management API, the ingest API, the device API, the dashboard and the operational endpoints. It builds no domain
/// service and schedules no domain work; `respond` serves one request.
public final class Application: Sendable {
    public let configuration: Configuration
    /// The domain it serves.
    public let domain: Domain
    public let logger: Logger
    public let metrics: Metrics
    let responder: @Sendable (Request) -> Response
    /// The routes registered, for the OpenAPI check.
    public let routes: [Router.Route]
    /// The first-admin setup link.
    public let setup: SetupLink

    /// Paths whose rest is a secret, for the logger (``Logger/secretPathPrefixes``): the one-time setup link's token.
    public static let secretPathPrefixes = ["/setup/"]

    /// The web face over `domain`.
    /// - Throws: `TemplateError` when a template does not parse.
    public init(domain: Domain, configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.domain = domain
        self.logger = logger
        metrics = Metrics()
        metrics.gauge("gatehouse_database_pending_writes", help: "Database writes waiting or running.") { domain.pendingWrites }
        metrics.gauge("gatehouse_webhook_queue", help: "Webhook deliveries waiting, all endpoints and servers together.") {
            (try? domain.webhooks.waiting()) ?? -1
        }
        metrics.counters("gatehouse_webhook_deliveries_total", help: "Webhook delivery attempts by this server, per result (delivered, failed, refused).",
                         label: "result") { domain.webhooks.deliveryCounts }
        let setup = SetupLink()
        self.setup = setup
        let views = try Views(directory: configuration.templatesDirectory)
        let dashboard = Dashboard(domain: domain, views: views, configuration: configuration, setup: setup)
        let googleDecodes = domain.playIntegrity.googleDecodes
        metrics.counters("gatehouse_play_integrity_google_decodes_total", help: "Calls to Google's decodeIntegrityToken by this server, per environment.",
                         label: "environment") { googleDecodes.totals }
        let tokens = domain.playIntegrity.tokens
        metrics.counters("gatehouse_play_integrity_tokens_total", help: "Play Integrity tokens judged by this server (decoded, first seen), per environment and package.",
                         labels: ["environment", "package"]) { tokens.totals }
        let receiptChecker = domain.receiptChecker
        metrics.counters("gatehouse_receipts_consume_total",
                         help: "Receipt checks by this server that spent a receipt (consumed) or found it spent (refused).",
                         label: "result") {
            let totals = receiptChecker.totals
            return ["consumed": totals.consumed, "refused": totals.refusedConsumed]
        }
        let refresher = domain.receiptRefresher
        metrics.counters("gatehouse_app_attest_receipt_refresh_total", help: "App Attest receipts this server traded at Apple, per result.",
                         label: "result") {
            Dictionary(uniqueKeysWithValues: refresher.totals.map { ($0.result.rawValue, $0.count) })
        }
        let recorder = domain.recorder
        metrics.counters("gatehouse_verdicts_total", help: "Device verdicts judged by this server, per environment, provider and status (written to traffic).",
                         labels: ["environment", "provider", "status"]) {
            Dictionary(uniqueKeysWithValues: recorder.totals().map { ([$0.key.environmentID, $0.key.provider, $0.key.status], $0.value) })
        }
        metrics.counters("gatehouse_cache_invalidations_total",
                         help: "Times this server's caches of a table forgot what they held: after a write to it here or on another server.",
                         label: "table") { domain.cacheInvalidations }
        let outcomes = domain.enforcementOutcomes
        metrics.counters("gatehouse_enforcement_total",
                         help: "Calls judged by this server's edge check and counts reported by backends to it, per environment, route and outcome.",
                         labels: ["environment", "route", "outcome"]) {
            Dictionary(uniqueKeysWithValues: outcomes.totalsSinceStart().map { ([$0.key.environmentID, $0.key.route, $0.key.outcome.rawValue], $0.value) })
        }
        var router = Router()
        Self.register(&router, domain: domain, configuration: configuration, metrics: metrics, dashboard: dashboard)
        routes = router.routes
        responder = router.responder(logger: logger)
    }

    /// Serves one request (used by the server and, without a socket, by tests).
    public func respond(_ request: Request) -> Response {
        responder(request)
    }
}

extension Logger {
    /// The domain's log lines written as this logger's JSON lines.
    public var domainLog: DomainLog {
        let logger = self
        return DomainLog { level, message, fields in
            let values = fields.sorted { $0.key < $1.key }.map { (key: $0.key, value: LogValue.string($0.value)) }
            switch level {
            case .info: logger.log(.info, message, fields: values)
            case .warning: logger.log(.warning, message, fields: values)
            case .error: logger.log(.error, message, fields: values)
            }
        }
    }
}
