import Gatehouse
import HTTP
import JSON

/// `/environments/{environmentId}/debug-tokens` (docs/device-api.md "Debug tokens"): create (the value shown once), list
/// (never the value), revoke.
extension ManagementAPI {
    func listDebugTokens(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        let tokens = try domain.debugTokens.list(environmentID: try request.parameter("environmentId"))
        return JSONBody.response(["items": .array(tokens.map(\.json))])
    }

    func createDebugToken(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        let id = try request.parameter("environmentId")
        let body = try JSONBody.read(request)
        guard body.members != nil else { throw ValidationError("", "the body must be an object with name and, optionally, expiresAt") }
        var errors = FieldErrors()
        var name = ""
        switch body["name"] {
        case .string(let text)?: name = text
        case nil, .null?: errors.add("/name", "is required: a name that says which build uses the token")
        default: errors.add("/name", "must be a string")
        }
        var expiresAt: Int64?
        switch body["expiresAt"] {
        case nil, .null?: expiresAt = nil
        case .string(let text)? where Timestamp.parse(text) != nil: expiresAt = Timestamp.parse(text)
        default: errors.add("/expiresAt", "must be an RFC 3339 time, at most 365 days ahead (omit it for 30 days)")
        }
        for member in body.members ?? [] where !["name", "expiresAt"].contains(member.key) {
            errors.add(Pointer.join("", member.key), "is not accepted here (expected name and expiresAt)")
        }
        try errors.throwIfAny()
        let (token, value) = try domain.debugTokens.create(environmentID: id, name: name, expiresAt: expiresAt, actor: actor)
        guard case .object(var members) = token.json else { throw Problem(status: 500, slug: "internal", title: "Internal error", detail: "") }
        members.insert(.init("token", .string(value)), at: 2)
        return JSONBody.response(.object(members), status: 201, headers: [
            "Location": "\(Self.base)/environments/\(id)/debug-tokens/\(token.id)", "Cache-Control": "no-store",
        ])
    }

    func revokeDebugToken(_ request: Request) throws -> Response {
        let actor = try domain.tokens.actor(of: request, scope: .write)
        try domain.debugTokens.revoke(environmentID: try request.parameter("environmentId"), tokenID: try request.parameter("tokenId"), actor: actor)
        return Response(status: 204)
    }
}

extension DebugToken {
    /// The wire form: never the token's value (only the answer that creates it carries that).
    var json: JSON {
        [
            "id": .string(id),
            "name": .string(name),
            "createdAt": .string(Timestamp.format(createdAt)),
            "expiresAt": .string(Timestamp.format(expiresAt)),
            "lastUsedAt": lastUsedAt.map { .string(Timestamp.format($0)) } ?? .null,
        ]
    }
}
