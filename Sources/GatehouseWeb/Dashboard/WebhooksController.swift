import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// The Webhooks page (owners; docs/device-api.md "Alerts"): the endpoints with their last result, a form to create one
/// (its secret shown once), and per endpoint its deliveries, a test event, enabling and disabling, a new secret and
/// deletion after a confirmation page.
struct WebhooksController: Sendable {
    let pages: Pages
    let webhooks: Webhooks
    let environments: Environments

    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/webhooks", pages.html(listPage))
        add("POST", "/webhooks", pages.html(create))
        add("GET", "/webhooks/{id}", pages.html(deliveriesPage))
        add("POST", "/webhooks/{id}/test", pages.html(test))
        add("POST", "/webhooks/{id}/enabled", pages.html(setEnabled))
        add("POST", "/webhooks/{id}/rotate-secret", pages.html(rotate))
        add("GET", "/webhooks/{id}/delete", pages.html(deletePage))
        add("POST", "/webhooks/{id}/delete", pages.html(delete))
    }

    static let what = "manage webhooks"

    func listPage(_ request: Request) throws -> Response {
        try listView(try pages.owner(request, what: Self.what), values: [:], status: 200)
    }

    /// The page with `values` (a refused form's, with its errors), the boxes of `chosenEvents` and `chosenEnvironments` ticked.
    func listView(_ context: DashboardContext, values: [String: MustacheValue], chosenEvents chosen: Set<String> = [],
                  chosenEnvironments: Set<String> = [], status: Int) throws -> Response {
        let hooks = try webhooks.list()
        let names = Dictionary(try environments.list().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var data = values
        data["webhooks"] = .array(hooks.map { row($0, names: names) })
        data["empty"] = .bool(hooks.isEmpty)
        data["eventChoices"] = .array(WebhookEventType.allCases.map { type in
            ["name": .string(type.rawValue), "id": .string("event-" + type.rawValue), "checked": .bool(chosen.contains(type.rawValue))]
        })
        data["environmentChoices"] = .array(names.sorted { $0.value < $1.value }.map { id, name in
            ["id": .string(id), "name": .string(name), "checked": .bool(chosenEnvironments.contains(id))]
        })
        if data["allEvents"] == nil { data["allEvents"] = true }
        if data["allEnvironments"] == nil { data["allEnvironments"] = true }
        return pages.page("pages/webhooks", title: "Webhooks", data, context: context, status: status, section: "webhooks")
    }

    func row(_ webhook: Webhook, names: [String: String]) -> MustacheValue {
        [
            "id": .string(webhook.id),
            "url": .string(webhook.url),
            "description": .string(webhook.description),
            "events": .string(webhook.events == ["*"] ? "every event" : webhook.events.joined(separator: ", ")),
            "environments": .string(webhook.environments == ["*"] ? "every environment" : webhook.environments.map { names[$0] ?? $0 }.joined(separator: ", ")),
            "enabled": .bool(webhook.enabled),
            "disabledReason": webhook.disabledReason.map { .string($0) } ?? .null,
            "failures": .int(webhook.failures),
            "failing": .bool(webhook.failures > 0),
            "lastResult": webhook.lastResult.map { .string($0) } ?? .null,
            "lastAt": webhook.lastAttemptAt.map(Dates.value) ?? .null,
            "rotating": webhook.previousSecretUntil.map(Dates.value) ?? .null,
        ]
    }

    func create(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.owner(request, form: form)
        let allEvents = form["events-all"] != nil, allEnvironments = form["environments-all"] != nil
        let events = allEvents ? ["*"] : WebhookEventType.allCases.map(\.rawValue).filter { form["event-" + $0] != nil }
        let environmentIDs = allEnvironments ? ["*"] : try environments.list().map(\.id).filter { form["environment-" + $0] != nil }
        var kept: [String: MustacheValue] = [
            "url": .string(form["url"] ?? ""), "description": .string(form["description"] ?? ""),
            "allEvents": .bool(allEvents), "allEnvironments": .bool(allEnvironments),
        ]
        let created: (webhook: Webhook, secret: String)
        do {
            created = try webhooks.create(Webhooks.Change(url: form["url"] ?? "", description: form["description"] ?? "", events: events,
                                                          environments: environmentIDs), actor: context.actor)
        } catch let error as ValidationError {
            var errors: [String: MustacheValue] = [:]
            for fault in error.errors {
                let field = String(fault.pointer.dropFirst().prefix { $0 != "/" })
                if errors[field] == nil { errors[field] = .string(fault.message) }
            }
            kept["errors"] = .dictionary(errors)
            return try listView(context, values: kept, chosenEvents: Set(events), chosenEnvironments: Set(environmentIDs), status: 422)
        }
        return secretPage(context, created.webhook, secret: created.secret, rotated: false)
    }

    /// The one page that shows a secret: the POST's answer, never stored for a redirect, kept out of caches.
    func secretPage(_ context: DashboardContext, _ webhook: Webhook, secret: String, rotated: Bool) -> Response {
        var response = pages.page("pages/webhooks-secret", title: rotated ? "New webhook secret" : "Webhook created", [
            "secret": .string(secret), "url": .string(webhook.url), "id": .string(webhook.id), "rotated": .bool(rotated),
        ], context: context, section: "webhooks")
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    func deliveriesPage(_ request: Request) throws -> Response {
        let context = try pages.owner(request, what: Self.what)
        let webhook = try webhooks.get(try request.parameter("id"))
        let names = Dictionary(try environments.list().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let attempts = try webhooks.attempts(webhook.id)
        return pages.page("pages/webhook", title: "Webhook \(webhook.url)", [
            "webhook": row(webhook, names: names),
            "attempts": .array(attempts.map { attempt in
                ["eventId": .string(attempt.eventID), "type": .string(attempt.type), "at": Dates.value(attempt.at),
                 "status": attempt.status.map { .int($0) } ?? .null, "error": attempt.error.map { .string($0) } ?? .null,
                 "duration": .int(Int(attempt.durationMilliseconds)), "delivered": .bool(attempt.succeeded)]
            }),
            "noAttempts": .bool(attempts.isEmpty),
        ], context: context, section: "webhooks")
    }

    func test(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.owner(request, form: form, what: Self.what)
        let id = try request.parameter("id")
        let attempt = try webhooks.test(id, actor: context.actor)
        let result = attempt.succeeded ? "delivered: the receiver answered \(attempt.status ?? 0)"
            : "not delivered: " + (attempt.status.map { "the receiver answered \($0)" } ?? attempt.error ?? "failed")
        return try pages.done(context, to: "/webhooks/\(id)", flash: "Test event \(result).", tone: attempt.succeeded ? .done : .warning)
    }

    func setEnabled(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.owner(request, form: form, what: Self.what)
        let on = form["enabled"] == "true"
        let webhook = try webhooks.update(try request.parameter("id"), Webhooks.Change(enabled: on), actor: context.actor)
        return try pages.done(context, to: "/webhooks", flash: on ? "\(webhook.url) is enabled: events of the last 3 days it has not received go out now."
                                                                 : "\(webhook.url) is disabled: its events wait up to 3 days.")
    }

    func rotate(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.owner(request, form: form, what: Self.what)
        let id = try request.parameter("id")
        let secret = try webhooks.rotateSecret(id, actor: context.actor)
        return secretPage(context, try webhooks.get(id), secret: secret, rotated: true)
    }

    func deletePage(_ request: Request) throws -> Response {
        let context = try pages.owner(request, what: Self.what)
        let webhook = try webhooks.get(try request.parameter("id"))
        return pages.page("pages/webhooks-delete", title: "Delete webhook", ["webhook": row(webhook, names: [:])], context: context, section: "webhooks")
    }

    func delete(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.owner(request, form: form, what: Self.what)
        let webhook = try webhooks.get(try request.parameter("id"))
        try webhooks.delete(webhook.id, actor: context.actor)
        return try pages.done(context, to: "/webhooks", flash: "Deleted the webhook to \(webhook.url).")
    }
}
