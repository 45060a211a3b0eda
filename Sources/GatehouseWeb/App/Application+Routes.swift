import Locks
import Foundation
import Gatehouse
import HTTP
import HTTPServer

extension Application {
    /// Every route, in one table. Each handler is wrapped to record metrics under its pattern.
    static func register(_ router: inout Router, domain: Domain, configuration: Configuration, metrics: Metrics, dashboard: Dashboard) {
        router.use(SecurityHeaders.middleware)
        func metered(_ pattern: String, _ handler: @escaping Router.Handler) -> Router.Handler {
            { request in
                let start = ContinuousClock.now
                var status = 500
                defer {
                    metrics.record(method: request.method, route: pattern, status: status, seconds: (ContinuousClock.now - start).inSeconds)
                }
                do {
                    let response = try handler(request)
                    status = response.status
                    return response
                } catch let error as HTTPResponseError {
                    status = error.status
                    throw error
                }
            }
        }
        func add(_ method: String, _ pattern: String, _ handler: @escaping Router.Handler) {
            router.add(method, pattern, metered(pattern, handler))
        }

        // Operations.
        add("GET", "/healthz") { _ in Response(status: 200, contentType: "text/plain; charset=utf-8", body: "ok\n") }
        add("GET", "/readyz") { _ in
            do {
                let status = try domain.database.migrationStatus()
                guard status.pending.isEmpty else {
                    return Response(status: 503, contentType: "text/plain; charset=utf-8", body: "migrations pending\n")
                }
                return Response(status: 200, contentType: "text/plain; charset=utf-8", body: "ready\n")
            } catch {
                return Response(status: 503, contentType: "text/plain; charset=utf-8", body: "database unavailable\n")
            }
        }
        if configuration.metrics != "off" {
            let required = configuration.metrics == "open" ? nil : configuration.metrics
            add("GET", "/metrics") { request in
                if let required {
                    guard RandomToken.matches(request.bearerCredentials ?? "", required) else {
                        throw HTTPError(status: 401, detail: "/metrics needs the configured token as Authorization: Bearer …", headers: ["WWW-Authenticate": "Bearer realm=\"metrics\""])
                    }
                }
                return Response(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics.text())
            }
        }

        // The bare exchange of `make bench` (`--bench-echo` only): the request read (by the server, as for every
        // route: a POST's body, a GET's headers), N bytes answered, nothing else done.
        if configuration.benchEcho {
            let echo: Router.Handler = { request in
                let bytes = min(max(Int(request.queryValue("bytes") ?? "") ?? 0, 0), 65_536)
                return Response(status: 200, headers: ["Content-Type": "application/json"], body: [UInt8](repeating: UInt8(ascii: "x"), count: bytes))
            }
            add("POST", "/bench/echo", echo)
            add("GET", "/bench/echo", echo)
        }

        // Management API.
        let api = ManagementAPI(domain: domain, tokenEndpoints: configuration.domain.tokenEndpoints)
        let v1 = ManagementAPI.base
        let openAPI = OpenAPIDocument.load(from: configuration.publicDirectory)
        add("GET", "\(v1)/openapi.json") { _ in try openAPI.get() }
        add("GET", "\(v1)/environments", api.listEnvironments)
        add("POST", "\(v1)/environments", api.createEnvironment)
        add("GET", "\(v1)/environments/{environmentId}", api.getEnvironment)
        add("PATCH", "\(v1)/environments/{environmentId}", api.patchEnvironment)
        add("DELETE", "\(v1)/environments/{environmentId}", api.deleteEnvironment)
        add("GET", "\(v1)/environments/{environmentId}/keys", api.listKeys)
        add("POST", "\(v1)/environments/{environmentId}/keys", api.createKey)
        add("POST", "\(v1)/environments/{environmentId}/keys/{keyId}/roll", api.rollKey)
        add("DELETE", "\(v1)/environments/{environmentId}/keys/{keyId}", api.revokeKey)
        add("GET", "\(v1)/environments/{environmentId}/debug-tokens", api.listDebugTokens)
        add("POST", "\(v1)/environments/{environmentId}/debug-tokens", api.createDebugToken)
        add("DELETE", "\(v1)/environments/{environmentId}/debug-tokens/{tokenId}", api.revokeDebugToken)
        add("GET", "\(v1)/environments/{environmentId}/checklist", api.checklist)
        add("POST", "\(v1)/environments/{environmentId}/play-integrity/check", api.checkPlayIntegrityKeys)
        add("GET", "\(v1)/environments/{environmentId}/play-integrity/usage", api.playIntegrityUsage)
        add("POST", "\(v1)/environments/{environmentId}/app-attest/refresh-receipts", api.refreshReceipts)
        add("GET", "\(v1)/environments/{environmentId}/enforcement", api.enforcement)
        add("GET", "\(v1)/audit", api.listAudit)
        add("GET", "\(v1)/webhooks", api.listWebhooks)
        add("POST", "\(v1)/webhooks", api.createWebhook)
        add("GET", "\(v1)/webhooks/{webhookId}", api.getWebhook)
        add("PATCH", "\(v1)/webhooks/{webhookId}", api.patchWebhook)
        add("DELETE", "\(v1)/webhooks/{webhookId}", api.deleteWebhook)
        add("GET", "\(v1)/webhooks/{webhookId}/deliveries", api.listWebhookDeliveries)
        add("POST", "\(v1)/webhooks/{webhookId}/rotate-secret", api.rotateWebhookSecret)
        add("POST", "\(v1)/webhooks/{webhookId}/test", api.testWebhook)

        // Static assets (Public/).
        let files = StaticFiles(root: configuration.publicDirectory)
        add("GET", "/static/{path...}", files.handler)

        // Dashboard.
        dashboard.register(add)

        // Verdict ingest.
        let ingest = IngestAPI(keys: domain.keys, verdicts: domain.verdicts, outcomes: domain.enforcementOutcomes, clock: domain.clock)
        add("POST", "/api/ingest/v1/verdicts", ingest.ingest)
        add("POST", "/api/ingest/v1/enforcement", ingest.ingestEnforcement)

        // The edge check for reverse proxies (docs/device-api.md "The edge check").
        EdgeAPI(edge: domain.edge, keys: domain.keys, environments: domain.environments).register(add: add, mount: { prefix, handler in
            router.mount(prefix, metered(prefix + "/…", handler))
        })

        // Receipts: the JWKS and the backends' check (docs/device-api.md "Receipts").
        ReceiptsAPI(receiptKeys: domain.receiptKeys, keys: domain.keys, checker: domain.receiptChecker).register(add)

        // Device API (docs/device-api.md), with its rate limits per client address and per public key.
        let clock = domain.clock
        let addressLimiter = RateLimiter(rate: configuration.deviceRatePerAddress, burst: configuration.deviceRatePerAddress * 2, clock: clock.monotonic)
        let keyLimiter = RateLimiter(rate: configuration.deviceRatePerKey, burst: configuration.deviceRatePerKey * 2, clock: clock.monotonic)
        let clientAddress = ClientAddress(trustedProxies: configuration.trustedProxies)
        let device = DeviceAPI(service: domain.appAttest, addressLimiter: addressLimiter, clientAddress: clientAddress, keyLimiter: keyLimiter)
        let assess = AssessAPI(service: domain.assess, appAttest: domain.appAttest, addressLimiter: addressLimiter, clientAddress: clientAddress,
                               keyLimiter: keyLimiter)
        add("POST", "/api/v4/attestation/challenge", device.challenge)
        add("POST", "/api/v4/attestation/app-attest", device.register)
        add("POST", "/api/v4/attestation/app-attest/assertion", device.assertion)
        add("POST", "/api/v4/attestation/play-integrity", PlayIntegrityAPI(device: device, service: domain.playIntegrity).judge)
        add("POST", "/api/v4/attestation/key-attestation", KeyAttestationAPI(device: device, service: domain.keyAttestation).register)
        add("POST", "/api/v4/assess", assess.assess)

    }
}
