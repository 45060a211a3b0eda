import Gatehouse
import HTTP
import JSON

/// `/webhooks` (docs/device-api.md "Alerts", "Endpoints"): create (the secret shown once), list, one, its deliveries,
/// change (Merge Patch), rotate the secret, send a test, delete. Reading takes a read token, the rest a write token.
extension ManagementAPI {
    func listWebhooks(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        return JSONBody.response(["items": .array(try domain.webhooks.list().map(\.json))])
    }

    func getWebhook(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        return JSONBody.response(try domain.webhooks.get(try request.parameter("webhookId")).json)
    }

    func createWebhook(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let change = try Self.webhookChange(try JSONBody.read(request), creating: true)
        let (webhook, secret) = try domain.webhooks.create(change, actor: actor)
        guard case .object(var members) = webhook.json else { throw Problem(status: 500, slug: "internal", title: "Internal error", detail: "") }
        members.insert(.init("secret", .string(secret)), at: 1)
        return JSONBody.response(.object(members), status: 201, headers: ["Location": "\(Self.base)/webhooks/\(webhook.id)", "Cache-Control": "no-store"])
    }

    func patchWebhook(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let change = try Self.webhookChange(try JSONBody.read(request, allowMergePatch: true), creating: false)
        return JSONBody.response(try domain.webhooks.update(try request.parameter("webhookId"), change, actor: actor).json)
    }

    func deleteWebhook(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        try domain.webhooks.delete(try request.parameter("webhookId"), actor: actor)
        return Response(status: 204)
    }

    func rotateWebhookSecret(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let id = try request.parameter("webhookId")
        let secret = try domain.webhooks.rotateSecret(id, actor: actor)
        var json = try domain.webhooks.get(id).json
        if case .object(var members) = json {
            members.insert(.init("secret", .string(secret)), at: 1)
            json = .object(members)
        }
        return JSONBody.response(json, headers: ["Cache-Control": "no-store"])
    }

    func testWebhook(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        return JSONBody.response(try domain.webhooks.test(try request.parameter("webhookId"), actor: actor).json)
    }

    func listWebhookDeliveries(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        return JSONBody.response(["items": .array(try domain.webhooks.attempts(try request.parameter("webhookId")).map(\.json))])
    }

    /// The members of a creation or a Merge Patch, their types checked by pointer (the domain checks their values).
    static func webhookChange(_ body: JSON, creating: Bool) throws -> Webhooks.Change {
        guard let members = body.members else { throw ValidationError("", "the body must be an object with url, events and, optionally, description and environments") }
        var errors = FieldErrors()
        var change = Webhooks.Change()
        func strings(_ key: String) -> [String]? {
            guard let value = body[key], !value.isNull else { return nil }
            guard let array = value.array else {
                errors.add("/\(key)", "must be an array of strings ([\"*\"] for all)")
                return nil
            }
            var result: [String] = []
            for (index, element) in array.enumerated() {
                if let text = element.string { result.append(text) } else { errors.add(Pointer.join("/\(key)", index), "must be a string") }
            }
            return result
        }
        switch body["url"] {
        case .string(let text)?: change.url = text
        case nil, .null?: break
        default: errors.add("/url", "must be a string: the https:// URL events are delivered to")
        }
        switch body["description"] {
        case .string(let text)?: change.description = text
        case nil: break
        case .null? where !creating: change.description = ""
        default: errors.add("/description", "must be a string")
        }
        change.events = strings("events")
        change.environments = strings("environments")
        switch body["enabled"] {
        case .bool(let on)?: change.enabled = on
        case nil, .null?: break
        default: errors.add("/enabled", "must be true or false")
        }
        for member in members where !["url", "description", "events", "environments", "enabled"].contains(member.key) {
            errors.add(Pointer.join("", member.key), "is not accepted here (expected url, description, events, environments, enabled)")
        }
        for key in ["url", "events", "environments", "enabled"] where body[key]?.isNull == true {
            errors.add("/\(key)", "cannot be null")
        }
        try errors.throwIfAny()
        return change
    }
}

extension Webhook {
    /// The wire form: never the secret, and the URL without its path's tail.
    var json: JSON {
        [
            "id": .string(id),
            "url": .string(url),
            "description": .string(description),
            "events": .array(events.map { .string($0) }),
            "environments": .array(environments.map { .string($0) }),
            "enabled": .bool(enabled),
            "disabledReason": disabledReason.map { .string($0) } ?? .null,
            "failuresInARow": .number(Double(failures)),
            "lastDeliveryAt": lastAttemptAt.map { .string(Timestamp.format($0)) } ?? .null,
            "lastResult": lastResult.map { .string($0) } ?? .null,
            "previousSecretSignsUntil": previousSecretUntil.map { .string(Timestamp.format($0)) } ?? .null,
            "createdAt": .string(Timestamp.format(createdAt)),
        ]
    }
}

extension WebhookAttempt {
    var json: JSON {
        [
            "eventId": .string(eventID),
            "type": .string(type),
            "at": .string(Timestamp.format(at)),
            "status": status.map { .number(Double($0)) } ?? .null,
            "error": error.map { .string($0) } ?? .null,
            "durationMs": .number(Double(durationMilliseconds)),
            "delivered": .bool(succeeded),
        ]
    }
}
