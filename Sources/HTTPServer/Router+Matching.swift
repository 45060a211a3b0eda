import HTTP

extension Router {
    /// Finds the handler for `request` and fills `pathParameters`. When no route matches (`matched` false) the
    /// handler throws 404, 405 or 400 (malformed percent-encoding), so that middleware runs around those answers too.
    func resolve(_ request: inout Request) -> (handler: Handler, matched: Bool) {
        for mount in mounts where Self.isAtOrBelow(request.target, mount.prefix) {
            return (mount.handler, true)
        }
        guard let raw = RoutePattern.pathSegments(of: request.target) else {
            return ({ _ in throw HTTPError(status: 404) }, false)
        }
        var segments: [String] = []
        segments.reserveCapacity(raw.count)
        for segment in raw {
            guard let decoded = RoutePattern.decode(segment) else {
                return ({ _ in throw HTTPError(status: 400, detail: "The path has malformed percent-encoding.") }, false)
            }
            segments.append(decoded)
        }
        var captures: [String] = []
        guard let node = root.match(segments, 0, &captures) else {
            return ({ _ in throw HTTPError(status: 404) }, false)
        }
        let endpoint = node.endpoints[request.method]
            ?? (request.method == "HEAD" ? node.endpoints["GET"] : nil)
            ?? node.endpoints["*"]
        guard let endpoint else {
            var allowed = Set(node.endpoints.keys)
            if allowed.contains("GET") { allowed.insert("HEAD") }
            let allow = allowed.sorted().joined(separator: ", ")
            return ({ _ in throw HTTPError(status: 405, headers: ["Allow": allow]) }, false)
        }
        for (name, value) in zip(endpoint.names, captures) {
            request.pathParameters[name] = value
        }
        return (endpoint.handler, true)
    }
}

extension Router {
    /// Whether the origin-form `target` is `prefix` or a path below it, with or without a query.
    static func isAtOrBelow(_ target: String, _ prefix: String) -> Bool {
        let utf8 = target.utf8
        guard utf8.starts(with: prefix.utf8) else { return false }
        let rest = utf8.dropFirst(prefix.utf8.count)
        guard let next = rest.first else { return true }
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "?")
    }
}

/// One node of the route trie: literal children, one parameter child, one catch-all child, and endpoints by method.
struct RouteNode: Sendable {
    struct Endpoint: Sendable {
        let handler: Router.Handler
        /// Parameter names in path order, matched to captures.
        let names: [String]
    }

    var literals: [String: RouteNode] = [:]
    var parameter: [RouteNode] = []  // zero or one element (an array because a struct cannot contain itself)
    var catchAll: [RouteNode] = []
    var endpoints: [String: Endpoint] = [:]

    mutating func insert(_ segments: ArraySlice<RoutePattern.Segment>, method: String, endpoint: Endpoint,
                         pattern: String) {
        guard let first = segments.first else {
            precondition(endpoints[method] == nil, "duplicate route \(method) \(pattern)")
            endpoints[method] = endpoint
            return
        }
        let rest = segments.dropFirst()
        switch first {
        case .literal(let text):
            var child = literals[text] ?? RouteNode()
            child.insert(rest, method: method, endpoint: endpoint, pattern: pattern)
            literals[text] = child
        case .parameter:
            var child = parameter.first ?? RouteNode()
            child.insert(rest, method: method, endpoint: endpoint, pattern: pattern)
            parameter = [child]
        case .catchAll:
            precondition(rest.isEmpty, "a catch-all must be the last segment: \(pattern)")
            var child = catchAll.first ?? RouteNode()
            child.insert(rest, method: method, endpoint: endpoint, pattern: pattern)
            catchAll = [child]
        }
    }

    /// Replaces every endpoint's handler by `transform(handler)`.
    mutating func mapEndpoints(_ transform: (@escaping Router.Handler) -> Router.Handler) {
        for (method, endpoint) in endpoints {
            endpoints[method] = Endpoint(handler: transform(endpoint.handler), names: endpoint.names)
        }
        for key in literals.keys { literals[key]?.mapEndpoints(transform) }
        for index in parameter.indices { parameter[index].mapEndpoints(transform) }
        for index in catchAll.indices { catchAll[index].mapEndpoints(transform) }
    }

    /// The endpoint node matching `segments[index...]`, preferring literals, then a parameter, then a catch-all.
    func match(_ segments: [String], _ index: Int, _ captures: inout [String]) -> RouteNode? {
        if index == segments.count {
            return endpoints.isEmpty ? nil : self
        }
        let segment = segments[index]
        if let child = literals[segment], let found = child.match(segments, index + 1, &captures) {
            return found
        }
        if let child = parameter.first {
            captures.append(segment)
            if let found = child.match(segments, index + 1, &captures) { return found }
            captures.removeLast()
        }
        if let child = catchAll.first, !child.endpoints.isEmpty {
            captures.append(segments[index...].joined(separator: "/"))
            return child
        }
        return nil
    }
}
