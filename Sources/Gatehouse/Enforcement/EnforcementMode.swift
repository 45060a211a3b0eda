/// What a route (or an environment, for the calls no route matches) does with the calls it judges (DEVICE-API.md
/// "Routes and modes"): `off` checks and counts nothing, `monitor` judges and counts but never refuses, `enforce`
/// refuses what is not `verified`.
public enum EnforcementMode: String, Sendable, Equatable, CaseIterable, Comparable {
    case off
    case monitor
    case enforce

    /// Stricter modes compare greater (`off` < `monitor` < `enforce`).
    public static func < (a: EnforcementMode, b: EnforcementMode) -> Bool {
        a.strictness < b.strictness
    }

    private var strictness: Int {
        switch self {
        case .off: 0
        case .monitor: 1
        case .enforce: 2
        }
    }
}

/// The enforcement settings of an environment: its mode for calls no route matches, and its routes in order.
public struct EnforcementSettings: Sendable, Equatable {
    /// The mode of calls no route matches, and of routes that name none.
    public var mode: EnforcementMode
    /// Tried in order; the first whose ``EnforcementRoute/match`` matches a call judges it.
    public var routes: [EnforcementRoute]

    /// At most this many routes per environment.
    public static let maxRoutes = 50
    /// The route name calls no route matches are counted under.
    public static let unmatched = "(unmatched)"

    public init(mode: EnforcementMode = .off, routes: [EnforcementRoute] = []) {
        self.mode = mode
        self.routes = routes
    }

    /// The route that judges `method path` (a normalized path, ``NormalizedPath``): the first that matches, or nil.
    /// A path that held a dot segment is also read as written (frameworks route `/api/orders/..` to
    /// `/api/orders/:id`): the route of that reading judges it when its mode is at least as strict as the normalized
    /// reading's, so no reading a framework may route by escapes its route.
    public func route(method: String, path: NormalizedPath) -> EnforcementRoute? {
        let normalized = routes.first { $0.match.matches(method: method, segments: path.folded) }
        guard let written = path.written,
              let literal = routes.first(where: { $0.match.matches(method: method, segments: written) }),
              literal.name != normalized?.name, mode(of: literal) >= mode(of: normalized)
        else { return normalized }
        return literal
    }

    /// The mode `route` judges under (its own, else the environment's).
    public func mode(of route: EnforcementRoute?) -> EnforcementMode {
        route?.mode ?? mode
    }

    /// The strictest mode of the environment and its routes: what a call whose path cannot be read is judged under.
    public var strictestMode: EnforcementMode {
        routes.reduce(mode) { max($0, $1.mode ?? mode) }
    }
}
