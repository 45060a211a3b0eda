import Foundation
@testable import Gatehouse
import GatehouseTesting
import Testing

/// The Enforcement tab: routes added, re-moded, moved and removed through plain forms (what a browser without
/// JavaScript sends), a bad route re-rendered with its message beside the field and nothing saved, a stale page
/// refused rather than overwriting another admin's change, a viewer who only reads, and each route's week beside it.
@Suite("Dashboard: enforcement routes")
struct DashboardEnforcementTests {
    let app: TestApp
    let owner: TestApp.BrowserSession
    let environmentID: String

    init() throws {
        app = try TestApp()
        owner = try app.signIn(role: .owner)
        environmentID = try app.application.domain.environments.create(name: "Shop", kind: .production, actor: .system).environment.id
    }

    var page: String { app.send("GET", "/environments/\(environmentID)/enforcement", headers: owner.headers).text }
    var revision: String { (try? app.application.domain.environments.get(environmentID).etag) ?? "" }
    var routes: [String] { ((try? app.application.domain.environments.get(environmentID).enforcement.routes) ?? []).map(\.name) }

    @discardableResult
    func add(_ fields: [String: String]) -> TestResponse {
        app.postForm("/environments/\(environmentID)/enforcement/routes", fields.merging(["revision": revision]) { a, _ in a }, session: owner)
    }

    @Test func routesAreAddedChangedMovedAndRemovedWithoutJavaScript() throws {
        #expect(page.contains("No route yet"))
        #expect(add(["name": "orders", "match": "GET /api/orders/**", "mode": "monitor"]).status == 303)
        #expect(add(["name": "pay", "match": "POST /api/pay", "mode": "", "bound": "1", "attested": "1", "consume": "1"]).status == 303)
        #expect(routes == ["orders", "pay"])
        let pay = try app.application.domain.environments.get(environmentID).enforcement.routes[1]
        #expect(pay.mode == nil && pay.require == .init(requiresBound: true, requiresVerifiedAttestation: true) && pay.consume)
        #expect(page.contains("requires bound, attested; spends the receipt (valid once)"))

        let route = "/environments/\(environmentID)/enforcement/routes"
        #expect(app.postForm("\(route)/pay", ["action": "up", "revision": revision], session: owner).status == 303)
        #expect(routes == ["pay", "orders"])
        #expect(app.postForm("\(route)/orders", ["action": "mode", "mode": "enforce", "revision": revision], session: owner).status == 303)
        #expect(try app.application.domain.environments.get(environmentID).enforcement.routes[1].mode == .enforce)
        #expect(app.postForm("/environments/\(environmentID)/enforcement/mode", ["mode": "monitor", "revision": revision], session: owner).status == 303)
        #expect(try app.application.domain.environments.get(environmentID).enforcement.mode == .monitor)
        let asked = app.send("GET", "\(route)/pay/remove", headers: owner.headers)
        #expect(asked.status == 200 && asked.text.contains("Remove the route pay?"))
        #expect(asked.text.contains("its receipts are no longer spent"), "pay consumes: the page says what removing it gives up")
        #expect(routes == ["pay", "orders"], "asking removes nothing")
        #expect(app.postForm("\(route)/pay/remove", [:], session: owner).status == 303)
        #expect(routes == ["orders"])
        #expect(app.postForm("\(route)/pay/remove", [:], session: owner).status == 404, "a route removed is gone")
        // Each change is audited as the API's are.
        let entries = try app.application.domain.audit.list(environmentID: environmentID, limit: 20).entries
        #expect(entries.filter { $0.changedFields.contains("enforcement.routes") }.count == 5, "two adds, a move, a mode, a removal")
        #expect(entries.filter { $0.changedFields.contains("enforcement.mode") }.count == 1)
    }

    @Test func aBadRouteIsShownBesideItsFieldAndNothingIsSaved() {
        let answer = add(["name": "Orders!", "match": "GET /a//b", "mode": "monitor"])
        #expect(answer.status == 422)
        #expect(answer.text.contains("id=\"route-name-error\">Name must be 1 to 40 lower-case letters"))
        #expect(answer.text.contains("id=\"route-match-error\">Match must not have an empty segment"))
        #expect(answer.text.contains("value=\"GET /a//b\""), "what was typed is kept")
        #expect(routes.isEmpty)
        #expect(add(["name": "orders", "match": "GET /x"]).status == 303)
        let duplicate = add(["name": "orders", "match": "GET /y"])
        #expect(duplicate.status == 422 && duplicate.text.contains("Name duplicates"))
    }

    @Test func aStalePageDoesNotOverwriteAnotherAdminsChange() {
        let seen = revision
        #expect(add(["name": "orders", "match": "GET /x"]).status == 303)
        let stale = app.postForm("/environments/\(environmentID)/enforcement/routes", ["name": "feed", "match": "GET /feed", "revision": seen], session: owner)
        #expect(stale.status == 412)
        #expect(routes == ["orders"])
    }

    @Test func aViewerSeesTheRoutesAndCannotChangeThem() throws {
        #expect(add(["name": "orders", "match": "GET /x", "mode": "enforce"]).status == 303)
        let viewer = try app.signIn(role: .viewer)
        let seen = app.send("GET", "/environments/\(environmentID)/enforcement", headers: viewer.headers).text
        #expect(seen.contains("<strong>orders</strong>"))
        #expect(!seen.contains("Add a route"))
        let refused = app.postForm("/environments/\(environmentID)/enforcement/routes/orders/remove", [:], session: viewer)
        #expect(refused.status == 403)
        #expect(app.postForm("/environments/\(environmentID)/enforcement/routes/orders", ["action": "down", "revision": revision], session: viewer).status == 403)
        #expect(routes == ["orders"])
    }

    @Test func eachRouteShowsItsWeekAndWhatEnforcingWouldRefuse() throws {
        #expect(add(["name": "orders", "match": "GET /api/orders/**", "mode": "monitor"]).status == 303)
        let outcomes = app.application.domain.enforcementOutcomes
        for _ in 0..<3 { outcomes.count(.missing, route: "orders", environmentID: environmentID) }
        for _ in 0..<97 { outcomes.count(.verified, route: "orders", environmentID: environmentID) }
        outcomes.flush()
        let shown = page
        #expect(shown.contains("<dt>missing</dt><dd>3</dd>"))
        #expect(shown.contains("<dt>verified</dt><dd>97</dd>"))
        #expect(shown.contains("Enforcing orders now would have refused 3 % of last week&#39;s 100 calls: 3 % came without a receipt"), "\(shown)")
        let traffic = app.send("GET", "/environments/\(environmentID)/traffic", headers: owner.headers).text
        #expect(traffic.contains("id=\"your-api\""))
        #expect(traffic.contains("<a href=\"/environments/\(environmentID)/enforcement\">Enforcement</a>"), "the Traffic tab has every tab")
        #expect(traffic.contains("<a href=\"/environments/\(environmentID)/traffic\" aria-current=\"page\">Traffic</a>"))
        #expect(traffic.contains("Enforcing orders now would have refused 3 %"))
        #expect(traffic.contains("<title id=\"api-chart-title\">"))
    }

    @Test func routesBackendsNameButTheEnvironmentDoesNotHoldAreListed() throws {
        #expect(add(["name": "orders", "match": "GET /api/orders/**", "mode": "monitor"]).status == 303)
        #expect(!page.contains("Routes your backends name"), "nothing reported yet")
        let outcomes = app.application.domain.enforcementOutcomes
        for _ in 0..<4 { outcomes.count(.missing, route: "checkout", environmentID: environmentID) }
        outcomes.flush()
        let shown = page
        #expect(shown.contains("Routes your backends name that this environment does not hold"))
        #expect(shown.contains("<h4><code>checkout</code></h4>"), "\(shown)")
        #expect(!shown.contains("<h4><code>orders</code></h4>"), "a route the environment holds is listed with the routes")
    }
}
