@testable import Gatehouse
import Foundation
import GatehouseReceipts
import HTTP
import JSON
import Simulator
import Testing
import TestSupport

/// Enforcement that cannot be walked around, at the edge (docs/device-api.md "Matching as the API routes"): every
/// spelling a framework would route to a protected handler is judged under its route, one receipt passes a `consume`
/// route once whatever the spelling, and the backend libraries read the routes and modes from
/// `GET /api/v4/edge/routes` ("One source of truth for modes").
@Suite("The edge check: spellings and the routes of the backends", .needsSyntheticCA)
struct EdgeSpellingsTests {
    let fixture: ReceiptsFixture

    static let enforcement: JSON = [
        "mode": "monitor",
        "routes": [
            ["name": "payments", "match": "POST /api/payments", "mode": "enforce", "require": ["bound": true, "attestation": "verified"], "consume": true],
            ["name": "orders", "match": "GET /api/orders/*", "mode": "enforce"],
        ],
    ]

    init() throws {
        fixture = try ReceiptsFixture()
        try patch(["enforcement": Self.enforcement])
    }

    func patch(_ body: JSON) throws {
        let response = fixture.app.send("PATCH", "/api/management/v1/environments/\(fixture.environmentID)", json: body,
                                        headers: ["Authorization": "Bearer " + (try fixture.app.token())])
        #expect(response.status == 200, "\(response.text)")
    }

    /// Asks the nginx check (`forwarded`: the Caddy one) about `method target`; "status outcome route".
    func edge(_ method: String, _ target: String, token: String? = nil, proof: String? = nil, forwarded: Bool = false) throws -> String {
        var headers = [("Authorization", "Bearer " + fixture.secret)]
        if let token { headers.append(("antibot-token", token)) }
        if let proof { headers.append(("antibot-pop", proof)) }
        let answer = forwarded
            ? try fixture.client.send("GET", "/api/v4/edge/forwarded", headers: headers + [("X-Forwarded-Method", method), ("X-Forwarded-Uri", target)])
            : try fixture.client.send("GET", "/api/v4/edge/nginx", headers: headers + [("X-Original-Method", method), ("X-Original-URI", target)])
        return "\(answer.status) \(answer.header("Gatehouse-Outcome") ?? "-") \(answer.header("Gatehouse-Route") ?? "-")"
    }

    /// Spellings of `POST /api/payments` that Express, Starlette, Flask or Django would route to its handler, or that
    /// a server behind the proxy could read as it.
    static let paymentSpellings: [(String, String)] = [
        ("POST", "/api/payments"), ("POST", "/API/payments"), ("POST", "/api/Payments"), ("POST", "/api/payments/"), ("POST", "/API/PAYMENTS/"),
        ("post", "/api/payments"), ("POST", "//api//payments"), ("POST", "/api/./payments"), ("POST", "/api/x/../payments"),
        ("POST", "/api/pay%6Dents"), ("POST", "/api/PAY%4Dents/?a=1"),
    ]
    /// Spellings refused outright: invalid under the strictest mode (enforce), whatever the receipt.
    static let refusedSpellings: [(String, String)] = [
        ("POST", "/api/payments;x"), ("POST", "/api/payments%3Bx"), ("POST", "/api/payments#x"), ("POST", "/api/payments%23x"),
        ("POST", "/api%5Cpayments"), ("POST", "/api\\payments"), ("POST", "/api/payments%09"), ("POST", "http://api.example.com/api/payments"),
    ]

    @Test(arguments: [false, true])
    func noSpellingReachesAProtectedHandlerWithoutAReceiptItAccepts(_ forwarded: Bool) throws {
        let unbound = try fixture.issue(bound: false, attestation: nil)
        for (method, target) in Self.paymentSpellings {
            #expect(try edge(method, target, forwarded: forwarded) == "401 missing payments", "\(method) \(target)")
            #expect(try edge(method, target, token: unbound, forwarded: forwarded) == "401 unmet payments", "\(method) \(target)")
        }
        for (method, target) in Self.refusedSpellings {
            #expect(try edge(method, target, token: unbound, forwarded: forwarded) == "401 invalid (unmatched)", "\(method) \(target)")
        }
        for method in ["HEAD", "head", "GET"] {
            #expect(try edge(method, "/API/Orders/7/", forwarded: forwarded) == "401 missing orders", "\(method)")
        }
        // Express routes a dot segment where :id stands to the handler (id "." or ".."): read as written too.
        for target in ["/api/orders/.", "/api/orders/..", "/api/orders/%2e/", "/api/x/../orders/7"] {
            #expect(try edge("GET", target, forwarded: forwarded) == "401 missing orders", "\(target)")
        }
    }

    @Test func oneReceiptPassesAConsumeRouteOnceWhateverTheSpelling() throws {
        let token = try fixture.issue()
        var passed: [String] = []
        for (method, target) in Self.paymentSpellings {
            let answer = try edge(method, target, token: token, proof: try fixture.proof(method, target))
            if answer == "204 verified payments" { passed.append(target) } else { #expect(answer == "401 reused payments", "\(target)") }
        }
        #expect(passed == ["/api/payments"], "the first spelling spends it; every other is reused")
    }

    @Test func backendsReadTheRoutesAndModesWithAnETag() throws {
        let auth = [("Authorization", "Bearer " + fixture.secret)]
        let first = try fixture.client.send("GET", "/api/v4/edge/routes", headers: auth)
        #expect(first.status == 200)
        #expect(first.header("Cache-Control") == "private, max-age=30")
        #expect(first.json?["environment"]?.string == fixture.environmentID)
        #expect(first.json?["mode"] == "monitor")
        #expect(first.json?["routes"]?.array?.map { $0["name"] } == ["payments", "orders"])
        #expect(first.json?["routes"]?.array?.first?["require"] == ["bound": true, "attestation": "verified"])
        let etag = try #require(first.header("ETag"))
        let same = try fixture.client.send("GET", "/api/v4/edge/routes", headers: auth + [("If-None-Match", etag)])
        #expect(same.status == 304)
        #expect(same.body.isEmpty)

        // A route switched to enforce (on the Enforcement tab, or here through the API) changes the answer and its tag.
        try patch(["enforcement": ["mode": "enforce"]])
        let changed = try fixture.client.send("GET", "/api/v4/edge/routes", headers: auth + [("If-None-Match", etag)])
        #expect(changed.status == 200)
        #expect(changed.json?["mode"] == "enforce")
        #expect(changed.header("ETag") != etag)
    }

    @Test func aRefusedKeyIsA401AndAnotherEnvironmentsKeyNamesItsOwn() throws {
        for secret in ["", "sk_live_wrong", fixture.secret + "x"] {
            let answer = try fixture.client.send("GET", "/api/v4/edge/routes", headers: secret.isEmpty ? [] : [("Authorization", "Bearer " + secret)])
            #expect(answer.status == 401, "\(secret)")
            #expect(answer.header("Content-Type") == "application/problem+json")
        }
        let other = try fixture.client.send("GET", "/api/v4/edge/routes", headers: [("Authorization", "Bearer " + fixture.otherSecret)])
        #expect(other.json?["environment"]?.string == fixture.otherEnvironmentID)
        #expect(other.json?["routes"] == [])
    }
}
