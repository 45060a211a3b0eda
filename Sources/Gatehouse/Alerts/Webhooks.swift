import Crypto
import Foundation
import HTTPClient
import JSON
import Storage
import Synchronization

/// Alerts as webhooks (docs/device-api.md "Alerts: webhooks when something needs a person"): endpoints created,
/// changed, rotated and deleted (audited; the secret shown once and kept sealed, the URL shown without its path's
/// tail), events written to an outbox in the transaction that changes the state, and delivered by the `gh-webhooks`
/// job: once across servers (a claim per delivery), in order per endpoint, signed as Standard Webhooks, retried with
/// jittered back-off, the endpoint disabled after 3 days of failures. Each delivery goes to the address its host
/// resolved to when it was checked (``WebhookDestination``).
public final class Webhooks: Sendable {
    let store: Store
    let client: HTTPClient
    let rules: WebhookDestination.Rules
    let publicURL: String?
    let retryScale: Double
    let random: @Sendable () -> Double
    let log: DomainLog
    /// Endpoints this server is delivering to now (a slow receiver holds only its own).
    let inFlight = Mutex<Set<String>>([])
    /// Deliveries by result since start (`/metrics`).
    let counts = Mutex<[String: Int]>([:])

    /// The most deliveries this server makes at once (each to its own endpoint).
    static let maxConcurrent = 8
    /// A delivery's time limit.
    static let timeout: Duration = .seconds(10)
    /// How long a claim lasts: past the timeout, so a server that dies mid-delivery is replaced.
    static let claimSeconds: Int64 = 60
    /// How long a rotated-out secret keeps signing.
    static let rotationOverlap: Int64 = 86_400
    /// Events are kept this long.
    static let retention: Int64 = 3 * 86_400

    init(_: Wiring, store: Store, configuration: DomainConfiguration, random: @escaping @Sendable () -> Double, log: DomainLog) throws {
        self.store = store
        rules = WebhookDestination.Rules(allowHTTP: configuration.webhookAllowHTTP, allowPrivate: configuration.webhookAllowPrivate,
                                         resolve: configuration.resolveHost)
        publicURL = configuration.publicURL
        retryScale = configuration.webhookRetryScale
        self.random = random
        self.log = log
        client = try HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: .seconds(5), totalTimeout: Self.timeout, caFile: configuration.outboundCAFile,
            maxConcurrentCalls: Self.maxConcurrent + 1, queueTimeout: .seconds(1), maxResponseBytes: 64 * 1024,
            userAgent: "Gatehouse/1", allowsPlainHTTP: configuration.webhookAllowHTTP))
    }

    // MARK: - Endpoints

    /// What a creation or a change sets (nil: unchanged); ``create(_:actor:)`` needs `url` and `events`.
    public struct Change: Sendable {
        public var url: String?
        public var description: String?
        public var events: [String]?
        public var environments: [String]?
        public var enabled: Bool?

        public init(url: String? = nil, description: String? = nil, events: [String]? = nil, environments: [String]? = nil, enabled: Bool? = nil) {
            self.url = url
            self.description = description
            self.events = events
            self.environments = environments
            self.enabled = enabled
        }
    }

    /// A new endpoint and its secret (`whsec_…`), which is shown only here.
    /// - Throws: `ValidationError` by pointer (`/url`, `/events/0`, `/environments/1`…), `StorageError`.
    public func create(_ change: Change, actor: AuditActor) throws -> (webhook: Webhook, secret: String) {
        let now = store.clock()
        var errors = FieldErrors()
        if change.url == nil { errors.add("/url", "is required: the https:// URL events are delivered to") }
        if change.events == nil { errors.add("/events", "is required: [\"*\"] or the event names to deliver") }
        let destination = try check(change, errors: &errors)
        try errors.throwIfAny()
        guard let url = change.url, let destination else { throw ValidationError(errors.errors) }
        let id = try RandomToken.identifier(prefix: "wh_")
        let secret = try WebhookSignature.newSecret()
        let webhook = Webhook(id: id, url: destination.shown, description: change.description ?? "", events: change.events ?? ["*"],
                              environments: change.environments ?? ["*"], enabled: change.enabled ?? true, disabledReason: nil, failures: 0,
                              failingSince: nil, lastAttemptAt: nil, lastResult: nil, createdAt: now, previousSecretUntil: nil)
        let sealedURL = try seal(Array(url.utf8), id: id), sealedSecret = try seal(Array(secret.utf8), id: id)
        try store.write { db in
            try environmentsExist(db, webhook.environments)
            try WebhooksTable.insert(db, webhook, sealedURL: sealedURL, sealedSecret: sealedSecret)
            try AuditLogTable.record(db, at: now, actor: actor, action: "webhook.create", environmentID: nil, changes: [
                AuditChange(field: "webhooks", before: .null, after: .string(Self.describe(webhook))),
            ])
        }
        return (webhook, secret)
    }

    /// Every endpoint, oldest first.
    public func list() throws -> [Webhook] {
        try store.read { db in try WebhooksTable.all(db) }
    }

    /// One endpoint.
    /// - Throws: `DomainError.notFound`.
    public func get(_ id: String) throws -> Webhook {
        guard let webhook = try store.read({ db in try WebhooksTable.get(db, id: id) }) else { throw DomainError.notFound("no webhook \(id)") }
        return webhook
    }

    /// Changes an endpoint (a Merge Patch's members); re-enabling one the server disabled resumes its deliveries.
    /// - Throws: `ValidationError` by pointer, `DomainError.notFound`.
    @discardableResult
    public func update(_ id: String, _ change: Change, actor: AuditActor) throws -> Webhook {
        let now = store.clock()
        var errors = FieldErrors()
        let destination = try check(change, errors: &errors)
        try errors.throwIfAny()
        let sealedURL = try change.url.map { try seal(Array($0.utf8), id: id) }
        return try store.write { db in
            guard let before = try WebhooksTable.get(db, id: id) else { throw DomainError.notFound("no webhook \(id)") }
            var after = before
            if let destination, let sealedURL {
                after.url = destination.shown
                try WebhooksTable.setURL(db, id: id, shown: destination.shown, sealed: sealedURL)
            }
            if let description = change.description { after.description = description }
            if let events = change.events { after.events = events }
            if let environments = change.environments {
                try environmentsExist(db, environments)
                after.environments = environments
            }
            if let enabled = change.enabled {
                after.enabled = enabled
                if enabled { (after.disabledReason, after.failures, after.failingSince) = (nil, 0, nil) }
            }
            try WebhooksTable.update(db, after)
            try AuditLogTable.record(db, at: now, actor: actor, action: "webhook.update", environmentID: nil, changes: [
                AuditChange(field: "webhooks", before: .string(Self.describe(before)), after: .string(Self.describe(after))),
            ])
            return after
        }
    }

    /// A new secret, shown only here; the one it replaces also signs for 24 hours.
    /// - Throws: `DomainError.notFound`.
    public func rotateSecret(_ id: String, actor: AuditActor) throws -> String {
        let now = store.clock()
        let secret = try WebhookSignature.newSecret()
        let sealed = try seal(Array(secret.utf8), id: id)
        try store.write { db in
            guard try WebhooksTable.rotate(db, id: id, sealedSecret: sealed, previousUntil: now + Self.rotationOverlap) else {
                throw DomainError.notFound("no webhook \(id)")
            }
            try AuditLogTable.record(db, at: now, actor: actor, action: "webhook.rotate-secret", environmentID: nil, changes: [
                AuditChange(field: "webhooks", before: .null, after: .string("\(id): a new secret; the previous one signs too until \(Timestamp.format(now + Self.rotationOverlap))")),
            ])
        }
        return secret
    }

    /// Deletes an endpoint with what it had still to receive.
    /// - Throws: `DomainError.notFound`.
    public func delete(_ id: String, actor: AuditActor) throws {
        let now = store.clock()
        try store.write { db in
            guard let before = try WebhooksTable.get(db, id: id), try WebhooksTable.delete(db, id: id) else { throw DomainError.notFound("no webhook \(id)") }
            try AuditLogTable.record(db, at: now, actor: actor, action: "webhook.delete", environmentID: nil, changes: [
                AuditChange(field: "webhooks", before: .string(Self.describe(before)), after: .null),
            ])
        }
    }

    /// The endpoint's last 100 attempts, newest first.
    /// - Throws: `DomainError.notFound`.
    public func attempts(_ id: String) throws -> [WebhookAttempt] {
        try store.read { db in
            guard try WebhooksTable.get(db, id: id) != nil else { throw DomainError.notFound("no webhook \(id)") }
            return try WebhookOutboxTable.attempts(db, webhookID: id)
        }
    }

    /// Sends a `webhook.test` event to the endpoint now and answers how it went (not retried, not counted among its
    /// failures; listed among its attempts).
    /// - Throws: `DomainError.notFound`.
    public func test(_ id: String, actor: AuditActor) throws -> WebhookAttempt {
        let now = store.clock()
        let webhook = try get(id)
        let event = WebhookOutboxTable.Event(
            id: try RandomToken.identifier(prefix: "msg_"), type: WebhookEventType.test.rawValue, environmentID: nil,
            data: ["webhook": .string(id), "requestedBy": .string(actor.name ?? actor.kind.rawValue)],
            text: "Gatehouse test event for \(webhook.url) (\(webhook.description.isEmpty ? id : webhook.description)): this endpoint receives Gatehouse's alerts.",
            createdAt: now)
        let attempt = try send(event, to: id, at: now)
        try store.write { db in try WebhookOutboxTable.recordAttempt(db, webhookID: id, attempt) }
        count(attempt)
        return attempt
    }

    /// Events waiting for delivery, all endpoints together.
    public func waiting() throws -> Int {
        try store.read { db in try WebhookOutboxTable.waiting(db) }
    }

    /// Deliveries by result since this server started: `delivered`, `failed`, `refused` (the address).
    public var deliveryCounts: [String: Int] { counts.withLock { $0 } }

    // MARK: - Checking

    /// Checks a change's values: the URL (parsed, then its host resolved and its addresses checked), the event names,
    /// the environments' form, the description's length; each fault at its pointer. Returns the URL's destination.
    private func check(_ change: Change, errors: inout FieldErrors) throws -> WebhookDestination? {
        var destination: WebhookDestination?
        if let url = change.url {
            do {
                let parsed = try WebhookDestination(url, rules: rules)
                _ = try parsed.address(rules: rules)
                destination = parsed
            } catch {
                errors.add("/url", error.description)
            }
        }
        if let description = change.description, description.count > 200 { errors.add("/description", "must be at most 200 characters") }
        if let events = change.events {
            if events.isEmpty { errors.add("/events", "must name at least one event, or be [\"*\"]") }
            if events.contains("*") && events.count > 1 { errors.add("/events", "is [\"*\"] alone, or event names") }
            for (index, name) in events.enumerated() where name != "*" && WebhookEventType(rawValue: name) == nil {
                errors.add(Pointer.join("/events", index), "is not an event: \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        if let environments = change.environments {
            if environments.isEmpty { errors.add("/environments", "must name at least one environment, or be [\"*\"]") }
            if environments.contains("*") && environments.count > 1 { errors.add("/environments", "is [\"*\"] alone, or environment ids") }
        }
        return destination
    }

    /// Throws by pointer for an environment id that does not exist.
    private func environmentsExist(_ db: any SQLConnection, _ ids: [String]) throws {
        var errors = FieldErrors()
        for (index, id) in ids.enumerated() where id != "*" {
            if try !EnvironmentsTable.exists(db, id: id) { errors.add(Pointer.join("/environments", index), "is not an environment") }
        }
        try errors.throwIfAny()
    }

    func seal(_ plaintext: [UInt8], id: String) throws -> [UInt8] {
        try store.seal(plaintext, environmentID: "webhook \(id)")
    }

    func open(_ sealed: [UInt8], id: String) throws -> [UInt8] {
        try store.open(sealed, environmentID: "webhook \(id)")
    }

    /// An endpoint as the audit log writes it: never its secret or its URL's tail.
    static func describe(_ webhook: Webhook) -> String {
        "\(webhook.id) \(webhook.url) events \(webhook.events.joined(separator: ",")) environments \(webhook.environments.joined(separator: ","))"
            + (webhook.enabled ? "" : " (disabled)")
    }
}
