import Gatehouse
import GatehouseReceipts
import JSON
import Testing

/// Routes as the edge check and the backend libraries match them (docs/device-api.md "Routes and modes"), and paths as
/// they are normalized first ("The edge check"): pure, table-driven.
@Suite("Enforcement routes and paths")
struct EnforcementRoutesTests {
    static func path(_ text: String) throws -> NormalizedPath { try NormalizedPath(text) }

    @Test(arguments: [
        ("/", "/"), ("/a", "/a"), ("/a/", "/a/"), ("/a//b", "/a/b"), ("//a///b//", "/a/b/"),
        ("/api/pay%6Dents/1", "/api/payments/1"), ("/%41%7e%2d", "/A~-"), ("/a%20b", "/a%20b"), ("/a%3fb", "/a%3Fb"),
        ("/a/./b", "/a/b"), ("/a/b/..", "/a/"), ("/a/b/../c", "/a/c"), ("/a/%2e%2E/c", "/c"), ("/a/.", "/a/"), ("/A/b%C3%A9", "/A/b%C3%A9"),
        ("/a?x=/../..", "/a"), ("/a/b?", "/a/b"),
    ])
    func pathsNormalize(_ raw: String, _ normalized: String) throws {
        #expect(try Self.path(raw).description == normalized)
    }

    @Test(arguments: [
        ("a/b", NormalizedPath.Refusal.notAPath), ("", .notAPath), ("?x", .notAPath), ("/a b", .notAPath), ("/\u{e9}", .notAPath),
        ("/a%2Fb", .encodedSeparator), ("/a%2fb", .encodedSeparator), ("/a%00", .encodedSeparator),
        ("/a%", .invalidEncoding), ("/a%4", .invalidEncoding), ("/a%zz", .invalidEncoding),
        ("/..", .aboveRoot), ("/a/../..", .aboveRoot), ("/%2e%2e/etc", .aboveRoot),
        ("/a;b", .semicolon), ("/a%3bb", .semicolon), ("/a#b", .fragment), ("/a%23", .fragment), ("/a\\b", .backslash), ("/a%5C", .backslash),
        ("/a\tb", .control), ("/a%1F", .control), ("/a\u{7F}", .control), ("/a\u{0}", .control), ("/a;b#c", .semicolon), ("/a%zz;", .invalidEncoding),
    ])
    func pathsThatCouldMeanTwoThingsAreRefused(_ raw: String, _ refusal: NormalizedPath.Refusal) {
        #expect(throws: refusal) { try NormalizedPath(raw) }
    }

    @Test(arguments: [
        ("GET /api/orders", "GET", "/api/orders", true), ("GET /api/orders", "GET", "/api/orders/", true),
        ("GET /api/orders/", "GET", "/api/orders", true), ("GET /api/orders", "HEAD", "/api/orders", true), ("GET /api/orders", "head", "/API/Orders/", true),
        ("HEAD /api/orders", "GET", "/api/orders", false), ("POST /api/orders", "HEAD", "/api/orders", false), ("POST /api/orders", "post", "/api/ORDERS", true),
        ("GET /Api/Orders", "GET", "/api/ORDERS", true), ("GET /api/orders", "GETS", "/api/orders", false), ("GET /api/orders", "GE", "/api/orders", false), ("GET /api/orders", "HEADS", "/api/orders", false),
        ("GET /api/orders", "POST", "/api/orders", false), ("* /api/orders", "PATCH", "/api/orders", true),
        ("GET /api/*/items", "GET", "/api/7/items", true), ("GET /api/*/items", "GET", "/api/items", false),
        ("GET /api/*/items", "GET", "/api/7/8/items", false), ("GET /api/*", "GET", "/api/", false),
        ("POST /api/payments/**", "POST", "/api/payments", true), ("POST /api/payments/**", "POST", "/api/payments/", true),
        ("POST /api/payments/**", "POST", "/api/payments/a/b/c", true), ("POST /api/payments/**", "POST", "/api/paymentsx", false),
        ("* /**", "OPTIONS", "/", true), ("* /**", "GET", "/anything/at/all", true),
        ("GET /", "GET", "/", true), ("GET /", "GET", "/a", false),
        ("GET /api/orders", "GET", "/api/orders?page=2", true), ("GET /api/orders", "GET", "/api/%6Frders?x", true),
    ])
    func matches(_ match: String, _ method: String, _ path: String, _ expected: Bool) throws {
        #expect(try RouteMatch(match).matches(method: method, path: try Self.path(path)) == expected)
    }

    @Test(arguments: [
        "GET", "GET  /a", "get /a", "GET /\u{301}api", "GET /a/\u{301}", "G\u{301}ET /a", "GET a", "GET /a/**/b", "GET /a//b", "GET /a/../b", "GET /a/%41", "GET /a b", "GET /a?x", "G@T /a", "",
    ])
    func matchTextsThatAreNotOneAreRefused(_ text: String) {
        #expect(throws: RouteMatch.Invalid.self) { try RouteMatch(text) }
    }

    @Test func theFirstMatchingRouteWinsAndTheRestFallToTheEnvironmentsMode() throws {
        let settings = EnforcementSettings(mode: .monitor, routes: [
            EnforcementRoute(name: "one", match: try RouteMatch("GET /api/orders/special"), mode: .off),
            EnforcementRoute(name: "all", match: try RouteMatch("* /api/orders/**"), mode: .enforce),
            EnforcementRoute(name: "never", match: try RouteMatch("GET /api/orders/special")),
        ])
        #expect(settings.route(method: "GET", path: try Self.path("/api/orders/special"))?.name == "one")
        #expect(settings.route(method: "POST", path: try Self.path("/api/orders/special"))?.name == "all")
        #expect(settings.route(method: "GET", path: try Self.path("/api/other")) == nil)
        #expect(settings.mode(of: nil) == .monitor)
        #expect(settings.mode(of: settings.routes[2]) == .monitor, "a route without a mode takes the environment's")
        #expect(settings.strictestMode == .enforce)
        #expect(EnforcementSettings(mode: .monitor).strictestMode == .monitor)
    }

    @Test func routeNames() {
        for name in ["payments", "a", "0-9", String(repeating: "x", count: 40)] { #expect(EnforcementRoute.isName(name), "\(name)") }
        for name in ["", "-a", "Payments", "pay_ments", String(repeating: "x", count: 41), "(unmatched)", "é"] { #expect(!EnforcementRoute.isName(name), "\(name)") }
    }

    @Test func patchesNameEveryFaultByPointer() throws {
        var many: [JSON] = []
        for i in 0..<51 { many.append(["name": .string("r\(i)"), "match": "GET /"]) }
        let cases: [(JSON, [String])] = [
            (["enforcement": "on"], ["/enforcement"]),
            (["enforcement": ["mode": "block"]], ["/enforcement/mode"]),
            (["enforcement": ["routes": .array(many)]], ["/enforcement/routes"]),
            (["enforcement": ["other": 1]], ["/enforcement/other"]),
            (["enforcement": ["routes": [["name": "a", "match": "GET /a"], ["name": "a", "match": "GET /b"]]]], ["/enforcement/routes/1/name"]),
            (["enforcement": ["routes": [["match": "GET /a"], ["name": "b"]]]], ["/enforcement/routes/0/name", "/enforcement/routes/1/match"]),
            (["enforcement": ["routes": [["name": "a", "match": "GET /a", "mode": "strict", "require": ["bound": "yes"], "consume": 1, "x": 1]]]],
             ["/enforcement/routes/0/mode", "/enforcement/routes/0/require/bound", "/enforcement/routes/0/consume", "/enforcement/routes/0/x"]),
            (["enforcement": ["routes": [["name": "a", "match": "GET /a/**/b"]]]], ["/enforcement/routes/0/match"]),
        ]
        for (body, pointers) in cases {
            #expect(throws: ValidationError.self, "\(body)") { try EnvironmentPatch.parse(body) }
            do {
                _ = try EnvironmentPatch.parse(body)
            } catch {
                #expect(Set(error.errors.map(\.pointer)) == Set(pointers), "\(body)")
            }
        }
        let patch = try EnvironmentPatch.parse(["enforcement": ["routes": [["name": "pay", "match": "POST /api/pay", "require": ["bound": true, "attestation": "verified"], "consume": true]]]])
        #expect(patch.enforcementMode == nil, "the mode is left alone")
        #expect(patch.enforcementRoutes?.first?.require == .boundAndAttested)
        #expect(patch.enforcementRoutes?.first?.consume == true)
        let off = try EnvironmentPatch.parse(["enforcement": .null])
        #expect(off.enforcementMode == .off && off.enforcementRoutes == [])
    }
}
