import Gatehouse
import GatehouseReceipts
import HTTP
import HTTPServer
import JSON

/// The edge check (docs/device-api.md "The edge check"): one endpoint per reverse-proxy convention, each reading the
/// original call only from its own convention's fields, so that a client cannot choose what is judged by sending
/// another convention's headers (proxies pass most client headers to the check). Authenticated with one of the
/// environment's secret keys, which the proxy's configuration sets (as a Bearer token, or as the password of Basic
/// credentials for Traefik, which can send credentials only in the address it calls). `204` lets the call pass (`200`
/// for Envoy, which passes a call only on 200), with the receipt's `Gatehouse-*` headers for the upstream; under
/// `enforce`, `401` or `403` refuses it.
struct EdgeAPI: Sendable {
    let edge: EdgeCheck
    let keys: APIKeys
    let environments: Environments

    /// Where Envoy's `ext_authz` (`path_prefix`) sends its checks: the original path follows.
    static let envoyPrefix = "/api/v4/edge/envoy"
    /// The receipt's header on the original call.
    static let tokenHeader = "antibot-token"
    /// The request proof's header on the original call.
    static let proofHeader = "antibot-pop"

    /// Adds the routes through `add` (any method on each) and `mount`.
    func register(add: (String, String, @escaping Router.Handler) -> Void, mount: (String, @escaping Router.Handler) -> Void) {
        add("*", "/api/v4/edge/nginx", nginx)
        add("*", "/api/v4/edge/forwarded", forwarded)
        add("GET", "/api/v4/edge/routes", routes)
        mount(Self.envoyPrefix, envoy)
    }

    /// How long a backend library may keep the routes (`Cache-Control: max-age`), in seconds: a switch on the
    /// Enforcement tab reaches every backend within a minute.
    static let routesMaxAge = 30

    /// The environment's routes and modes for the backend libraries (docs/device-api.md "One source of truth for
    /// modes"): `{"environment", "mode", "routes"}` for the environment of the presented secret key, with a strong
    /// `ETag` and `Cache-Control: private, max-age=30`; `If-None-Match` → 304.
    func routes(_ request: Request) throws -> Response {
        guard let presented = request.bearerCredentials else {
            throw DomainError.unauthenticated("a backend must send one of the environment's secret keys as Authorization: Bearer sk_…")
        }
        let key = try keys.authenticateSecret(presented)
        let environment = try environments.get(key.environmentID)
        var members: [JSON.Member] = [.init("environment", .string(environment.id))]
        members += environment.enforcement.json.members ?? []
        return ConditionalGet.response(to: request, body: JSON.object(members).serialized(), contentType: "application/json",
                                       cacheControl: "private, max-age=\(Self.routesMaxAge)")
    }

    /// nginx `auth_request`: the call from `X-Original-Method` and `X-Original-URI`.
    func nginx(_ request: Request) throws -> Response {
        try check(request) {
            try Self.named(request, method: "X-Original-Method", uri: "X-Original-URI",
                           setting: "proxy_set_header X-Original-Method $request_method; proxy_set_header X-Original-URI $request_uri;")
        }
    }

    /// Caddy `forward_auth`, Traefik `ForwardAuth`: the call from `X-Forwarded-Method` and `X-Forwarded-Uri` (the
    /// check's own query string, which Caddy copies, is not read).
    func forwarded(_ request: Request) throws -> Response {
        try check(request) {
            try Self.named(request, method: "X-Forwarded-Method", uri: "X-Forwarded-Uri",
                           setting: "Caddy's forward_auth and Traefik's ForwardAuth set them")
        }
    }

    /// Envoy `ext_authz` (HTTP service): the check's own method, and its path below the prefix with its query.
    /// A call that may pass gets 200 here, not 204: Envoy's HTTP `ext_authz` passes a call only on 200.
    func envoy(_ request: Request) throws -> Response {
        try check(request, passing: 200) {
            var rest = String(request.target.utf8.dropFirst(Self.envoyPrefix.utf8.count)) ?? ""
            if !rest.hasPrefix("/") { rest = "/" + rest }
            return (request.method, rest)
        }
    }

    /// The original call as two headers name it; a 400 when either is missing.
    static func named(_ request: Request, method methodHeader: String, uri uriHeader: String, setting: String) throws -> (String, String) {
        var errors: [FieldError] = []
        let method = request.headers[methodHeader]
        if method.map(ReceiptsAPI.isMethod) != true {
            errors.append(FieldError("/headers/\(methodHeader)", "must be the original call's method (the proxy sets it: \(setting))"))
        }
        let uri = request.headers[uriHeader]
        if uri?.isEmpty != false {
            errors.append(FieldError("/headers/\(uriHeader)", "must be the original call's path and query (the proxy sets it: \(setting))"))
        }
        guard errors.isEmpty, let method, let uri else {
            var problem = Problem.badRequest(errors)
            problem.detail = "The check cannot tell which call to judge: the proxy's configuration does not send \(methodHeader) and \(uriHeader)."
            throw problem
        }
        return (method, uri)
    }

    /// Authenticates the proxy, reads the call with `original`, judges it and answers.
    func check(_ request: Request, passing: Int = 204, original: () throws -> (method: String, pathAndQuery: String)) throws -> Response {
        guard let presented = request.bearerCredentials ?? request.basicPassword else {
            throw DomainError.unauthenticated("the proxy must send one of the environment's secret keys as Authorization: Bearer sk_… (or as the password of Basic credentials), set in its configuration")
        }
        let key = try keys.authenticateSecret(presented)
        let call = try original()
        let environment = try environments.get(key.environmentID)
        let judgement = try edge.judge(method: call.method, pathAndQuery: call.pathAndQuery, token: request.headers[Self.tokenHeader],
                                       proof: request.headers[Self.proofHeader], environment: environment)
        var headers: Headers = ["Cache-Control": "no-store", "Gatehouse-Route": judgement.route,
                                "Gatehouse-Outcome": judgement.outcome?.rawValue ?? ""]
        guard judgement.allows else {
            var problem = Self.refusal(judgement)
            for field in headers { problem.headers.set(field.name, field.value) }
            return problem.response
        }
        let receipt = judgement.receipt
        headers.set("Gatehouse-Receipt", receipt?.subject ?? "")
        headers.set("Gatehouse-Platform", receipt?.platform ?? "")
        headers.set("Gatehouse-Attestation", receipt.map { claims in claims.attestation.map { "\($0.provider):\($0.status)" } ?? "none" } ?? "")
        return Response(status: passing, headers: headers)
    }

    /// The problem refusing a call under `enforce` (the one table of ``EnforcementRefusal``).
    static func refusal(_ judgement: EdgeJudgement) -> Problem {
        let outcome = judgement.outcome ?? .missing
        let refusal = EnforcementRefusal(outcome) ?? .missing
        var problem = Problem(status: refusal.status, slug: refusal.slug, title: refusal.title, detail: refusal.detail)
        problem.extra = [.init("outcome", .string(outcome.rawValue)), .init("route", .string(judgement.route)),
                         .init("reasons", .array(judgement.reasons.map { .string($0) }))]
        return problem
    }
}
