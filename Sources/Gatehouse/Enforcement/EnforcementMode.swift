/// What a route (or an environment, for the calls no route matches) does with the calls it judges (docs/device-api.md
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
    /// A path that held a dot segment is also read as written (Express, Starlette and Flask route `/api/orders/..` to
    /// `/api/orders/:id`, and `/a/./b` to a handler of `/a/:x/b` the table may not hold): of the two readings, the
    /// one whose route (or `(unmatched)`) is stricter judges (``strictness(of:)``; the one as written on a tie), so
    /// no reading a framework may route by is judged more leniently than it would be on its own.
    public func route(method: String, path: NormalizedPath) -> EnforcementRoute? {
        let normalized = routes.first { $0.match.matches(method: method, segments: path.folded) }
        guard let written = path.written else { return normalized }
        let literal = routes.first { $0.match.matches(method: method, segments: written) }
        guard literal?.name != normalized?.name else { return normalized }
        return strictness(of: literal) >= strictness(of: normalized) ? literal : normalized
    }

    /// How strictly `route` (nil: `(unmatched)`) judges, to compare two: its mode first, then what it asks of the
    /// receipt (`consume` over a verified attestation over `bound`).
    func strictness(of route: EnforcementRoute?) -> Int {
        let rank = EnforcementMode.allCases.firstIndex(of: mode(of: route)) ?? 0
        guard let route else { return rank * 8 }
        return rank * 8 + (route.consume ? 4 : 0) + (route.require.requiresVerifiedAttestation ? 2 : 0) + (route.require.requiresBound ? 1 : 0)
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
