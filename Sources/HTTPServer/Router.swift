import HTTP

/// Collects routes (method + path pattern → handler) and middleware, then produces an immutable, `Sendable`
/// responder for the server.
///
/// Patterns are `/`-separated segments: literals, `{name}` (one segment, percent-decoded into
/// `request.pathParameters["name"]`) and, last only, `{name...}` (the rest of the path, one or more segments).
/// Literal segments win over parameters. No matching path → 404; a path that matches other methods → 405 with
/// `Allow`; HEAD falls back to GET; a route registered for method `*` answers every method it has no route for.
/// A mount (``mount(_:_:)``) takes every method and every path at or below its prefix, undecoded, before the
/// patterns are tried. Registering the same method and pattern twice is a programmer error (trap).
public struct Router: Sendable {
    /// A request handler. It runs on a worker thread and may block; a thrown error becomes a response in one place
    /// (see `HTTPResponseError`).
    public typealias Handler = @Sendable (Request) throws -> Response
    /// Wraps a handler: receives the request and the next handler, returns the response (or throws).
    public typealias Middleware = @Sendable (Request, Handler) throws -> Response

    /// A registered route, as listed by `routes`.
    public struct Route: Sendable, Hashable {
        /// The method token, e.g. "GET".
        public var method: String
        /// The pattern as registered, e.g. "/api/management/v1/environments/{environmentId}".
        public var pattern: String
    }

    var root = RouteNode()
    /// Prefixes handed whole to one handler, tried first.
    var mounts: [(prefix: String, handler: Handler)] = []
    var middlewares: [Middleware] = []
    /// The route handlers already include the middleware (set on the copy `responder` freezes).
    var precomposed = false
    /// Every registered route in registration order.
    public private(set) var routes: [Route] = []

    /// An empty router: every request gets 404.
    public init() {}

    /// Registers `handler` for `method` (case-sensitive, e.g. "GET") and `pattern` (e.g.
    /// "/api/management/v1/environments/{environmentId}"). Traps on a malformed pattern or a duplicate route.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        let segments = RoutePattern.parse(pattern)
        var names: [String] = []
        for segment in segments {
            switch segment {
            case .parameter(let name), .catchAll(let name): names.append(name)
            case .literal: break
            }
        }
        root.insert(segments[...], method: method, endpoint: RouteNode.Endpoint(handler: handler, names: names),
                    pattern: pattern)
        routes.append(Route(method: method, pattern: pattern))
    }

    /// Registers a GET route.
    public mutating func get(_ pattern: String, _ handler: @escaping Handler) { add("GET", pattern, handler) }
    /// Registers a POST route.
    public mutating func post(_ pattern: String, _ handler: @escaping Handler) { add("POST", pattern, handler) }
    /// Registers a PUT route.
    public mutating func put(_ pattern: String, _ handler: @escaping Handler) { add("PUT", pattern, handler) }
    /// Registers a PATCH route.
    public mutating func patch(_ pattern: String, _ handler: @escaping Handler) { add("PATCH", pattern, handler) }
    /// Registers a DELETE route.
    public mutating func delete(_ pattern: String, _ handler: @escaping Handler) { add("DELETE", pattern, handler) }

    /// Hands every request whose path is `prefix` or below it (`prefix/…`, with any query), whatever its method, to
    /// `handler`, before any pattern is tried and before the path is percent-decoded: for a handler that reads the
    /// rest of `request.target` itself (a forward-auth endpoint judging another server's path, where a path that does
    /// not decode is an answer, not a 400).
    public mutating func mount(_ prefix: String, _ handler: @escaping Handler) {
        precondition(prefix.hasPrefix("/") && !prefix.hasSuffix("/"), "a mount's prefix starts with / and does not end with one: \(prefix)")
        mounts.append((prefix, handler))
        routes.append(Route(method: "*", pattern: prefix + "/{path}"))
    }

    /// Adds middleware around every route (and around the 404/405 answers). The first added is the outermost.
    public mutating func use(_ middleware: @escaping Middleware) {
        middlewares.append(middleware)
    }

    /// The responder for `Server`: routes the request, runs the middleware and handler, and maps thrown errors —
    /// `HTTPResponseError` to its response, anything else to a 500 problem with the request id (the error itself is
    /// logged to `logger`, never sent).
    public func responder(logger: Logger = .standardError()) -> @Sendable (Request) -> Response {
        var frozen = self
        let middlewares = self.middlewares
        // Wrap every route's handler in the middleware once, not per request.
        frozen.root.mapEndpoints { Self.compose($0, middlewares, logger: logger) }
        frozen.mounts = frozen.mounts.map { ($0.prefix, Self.compose($0.handler, middlewares, logger: logger)) }
        frozen.precomposed = true
        let router = frozen
        return { request in router.respond(to: request, logger: logger) }
    }

    /// Routes and runs one request; see `responder(logger:)`. Each middleware's `next` returns a response even when
    /// the inner layers threw (the error already mapped), so a middleware decorating responses sees errors too.
    public func respond(to request: Request, logger: Logger) -> Response {
        var request = request
        let (handler, matched) = resolve(&request)
        let chain = matched && precomposed ? handler : Self.compose(handler, middlewares, logger: logger)
        do {
            return try chain(request)
        } catch {
            return Self.response(for: error, request: request, logger: logger)
        }
    }

    private static func compose(_ handler: @escaping Handler, _ middlewares: [Middleware], logger: Logger) -> Handler {
        var chain = recovering(handler, logger: logger)
        for middleware in middlewares.reversed() {
            let next = chain
            chain = recovering({ request in try middleware(request, next) }, logger: logger)
        }
        return chain
    }

    private static func recovering(_ handler: @escaping Handler, logger: Logger) -> Handler {
        { request in
            do {
                return try handler(request)
            } catch {
                return response(for: error, request: request, logger: logger)
            }
        }
    }

    /// The one place an error becomes a response: `HTTPResponseError` → its own response; anything else → a 500
    /// problem with the request id, the error's text going to the log only.
    static func response(for error: any Error, request: Request, logger: Logger) -> Response {
        if let error = error as? any HTTPResponseError {
            return error.response(requestID: request.id)
        }
        logger.error("handler failed", [
            "request_id": .string(request.id), "method": .string(request.method),
            "path": .string(logger.loggable(path: request.path)), "error": .string(String(describing: error)),
        ])
        return Response.problem(status: 500, requestID: request.id)
    }
}
