import Foundation
import Gatehouse
import HTTP
import JSON

/// The management REST API (`/api/management/v1`): environments, their apps and credentials (seed 003's wire
/// format), API keys and the audit log. Every handler authenticates a management token first.
struct ManagementAPI: Sendable {
    let domain: Domain
    /// Where a service account's `token_uri` may point.
    let tokenEndpoints: TokenEndpoints

    static let base = "/api/management/v1"

    func listEnvironments(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        let environments = try domain.environments.list()
        return JSONBody.response(["environments": .array(environments.map(\.json))])
    }

    func createEnvironment(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let (name, kind) = try EnvironmentFields.newEnvironment(try JSONBody.read(request))
        let (environment, keys) = try domain.environments.create(name: name, kind: kind, actor: actor)
        let now = domain.clock()
        guard case .object(var members) = environment.json else { throw Problem(status: 500, slug: "internal", title: "Internal error", detail: "") }
        members.append(.init("keys", .array(keys.map { $0.json(now: now) })))
        return JSONBody.response(.object(members), status: 201, headers: [
            "Location": "\(Self.base)/environments/\(environment.id)", "ETag": environment.etag,
        ])
    }

    func getEnvironment(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        let environment = try domain.environments.get(try request.parameter("environmentId"))
        if let match = request.headers["If-None-Match"], ConditionalGet.matches(match, environment.etag) {
            return Response(status: 304, headers: ["ETag": environment.etag])
        }
        let body = domain.environments.serialized(environment)
        return Response(status: 200, headers: ["ETag": environment.etag, "Content-Type": "application/json"], body: body)
    }

    func patchEnvironment(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let id = try request.parameter("environmentId")
        let patch = try EnvironmentPatch.parse(try JSONBody.read(request, allowMergePatch: true), tokenEndpoints: tokenEndpoints)
        let environment = try domain.environments.patch(id, with: patch, ifMatch: request.headers["If-Match"], actor: actor)
        return JSONBody.response(environment.json, headers: ["ETag": environment.etag])
    }

    func deleteEnvironment(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        try domain.environments.delete(try request.parameter("environmentId"), ifMatch: request.headers["If-Match"], actor: actor)
        return Response(status: 204)
    }

    func listKeys(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        let now = domain.clock()
        let keys = try domain.keys.list(environmentID: try request.parameter("environmentId"))
        return JSONBody.response(["keys": .array(keys.map { $0.json(now: now) })])
    }

    func createKey(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let id = try request.parameter("environmentId")
        let body = try JSONBody.read(request)
        var errors = FieldErrors()
        guard body.members != nil else { throw ValidationError("", "the body must be an object with type and name") }
        let type = body["type"]?.string.flatMap(APIKey.KeyType.init(rawValue:))
        if type == nil { errors.add("/type", "must be \"public\" or \"secret\"") }
        var name = "Key"
        if let value = body["name"] {
            name = EnvironmentFields.name(value, at: "/name", errors: &errors) ?? name
        }
        for member in body.members ?? [] where !["type", "name"].contains(member.key) {
            errors.add(Pointer.join("", member.key), "is not accepted here (expected type and name)")
        }
        try errors.throwIfAny()
        guard let type else { throw ValidationError(errors.errors) }
        let issued = try domain.keys.create(environmentID: id, type: type, name: name, actor: actor)
        return JSONBody.response(issued.json(now: domain.clock()), status: 201, headers: [
            "Location": "\(Self.base)/environments/\(id)/keys/\(issued.key.id)",
        ])
    }

    func rollKey(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let id = try request.parameter("environmentId")
        let keyID = try request.parameter("keyId")
        let body = request.body.isEmpty ? JSON.object([]) : try JSONBody.read(request)
        guard body.members != nil else { throw ValidationError("", "the body must be an object with expiresInHours") }
        var hours = 24
        if let value = body["expiresInHours"] {
            guard let h = value.integer, (0...APIKeys.maxGraceHours).contains(h) else {
                throw ValidationError("/expiresInHours", "must be a whole number of hours from 0 to \(APIKeys.maxGraceHours)")
            }
            hours = h
        }
        for member in body.members ?? [] where member.key != "expiresInHours" {
            throw ValidationError(Pointer.join("", member.key), "is not accepted here (expected expiresInHours)")
        }
        let issued = try domain.keys.roll(environmentID: id, keyID: keyID, graceHours: hours, actor: actor)
        return JSONBody.response(issued.json(now: domain.clock()), status: 201, headers: [
            "Location": "\(Self.base)/environments/\(id)/keys/\(issued.key.id)",
        ])
    }

    func revokeKey(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        try domain.keys.revoke(environmentID: try request.parameter("environmentId"), keyID: try request.parameter("keyId"), actor: actor)
        return Response(status: 204)
    }

    func checklist(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        let environment = try domain.environments.get(try request.parameter("environmentId"))
        return JSONBody.response(try domain.checklists.report(for: environment).json)
    }

    /// `GET …/environments/{id}/enforcement`: the last seven days per route and source, and what enforcing each
    /// route would have refused.
    func enforcement(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        let environment = try domain.environments.get(try request.parameter("environmentId"))
        let week = try domain.enforcementOutcomes.week(environmentID: environment.id, settings: environment.enforcement)
        return JSONBody.response(week.json, headers: ["Cache-Control": "no-store"])
    }

    func listAudit(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        var errors = FieldErrors()
        var limit = 50
        if let text = request.queryValue("limit") {
            if let n = Int(text), (1...200).contains(n) { limit = n } else { errors.add("/limit", "must be a whole number from 1 to 200") }
        }
        var cursor: Int64?
        if let text = request.queryValue("cursor") {
            if let n = Int64(text), n > 0 { cursor = n } else { errors.add("/cursor", "must be the nextCursor of a previous page") }
        }
        try errors.throwIfAny()
        let environmentID = request.queryValue("environmentId").flatMap { $0.isEmpty ? nil : $0 }
        let page = try domain.audit.list(environmentID: environmentID, limit: limit, before: cursor)
        return JSONBody.response([
            "entries": .array(page.entries.map(\.json)),
            "nextCursor": page.nextCursor.map { .string(String($0)) } ?? .null,
        ])
    }
}

extension AuditEntry {
    var json: JSON {
        [
            "id": .string(String(id)),
            "at": .string(Timestamp.format(at)),
            "actor": .object([.init("type", .string(actor.kind.rawValue)), .init("id", .optional(actor.id)), .init("name", .optional(actor.name))]),
            "action": .string(action),
            "environmentId": .optional(environmentID),
            "changes": changes,
        ]
    }
}
