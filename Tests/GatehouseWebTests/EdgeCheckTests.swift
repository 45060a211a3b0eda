@testable import Gatehouse
import Foundation
import GatehouseReceipts
import HTTP
import JSON
import Simulator
import TestThreads
import Testing
import TestSupport

/// The edge check for reverse proxies (docs/device-api.md "The edge check"), over a real socket: every outcome under
/// `enforce` and `monitor` through each proxy convention, a client's headers of the other conventions ignored, paths
/// normalized, the secret-key rules, `consume` spending a receipt once, a revoked receipt key, attack mode's
/// `challenge`, and the counts read back through the API and `/metrics`.
@Suite("The edge check", .needsSyntheticCA)
struct EdgeCheckTests {
    let fixture: ReceiptsFixture

    /// The routes every test starts with: the environment in `monitor`, then
    /// orders (enforce), pay (enforce, bound and attested, consumed), feed (monitor, bound), health (off).
    static let routes: JSON = [
        "mode": "monitor",
        "routes": [
            ["name": "orders", "match": "GET /api/orders/**", "mode": "enforce"],
            ["name": "pay", "match": "POST /api/pay", "mode": "enforce", "require": ["bound": true, "attestation": "verified"], "consume": true],
            ["name": "feed", "match": "GET /api/feed/*", "mode": "monitor", "require": ["bound": true]],
            ["name": "health", "match": "* /api/health", "mode": "off"],
        ],
    ]

    init() throws {
        fixture = try ReceiptsFixture()
        try patch(["enforcement": Self.routes])
    }

    /// PATCHes the fixture's environment (or `environment`); expects 200.
    func patch(_ body: JSON, environment: String? = nil) throws {
        let response = fixture.app.send("PATCH", "/api/management/v1/environments/\(environment ?? fixture.environmentID)", json: body,
                                        headers: ["Authorization": "Bearer " + (try fixture.app.token())])
        #expect(response.status == 200, "\(response.text)")
    }

    /// A proxy convention and how it names the original call.
    enum Convention: String, CaseIterable, CustomTestStringConvertible {
        case nginx, forwarded, envoy
        var testDescription: String { rawValue }
    }

    /// Asks the check of `convention` about `method target` with `token` and `proof` (Envoy's 200 read as 204).
    func edge(_ convention: Convention, _ method: String, _ target: String, token: String? = nil, proof: String? = nil,
              secret: String? = nil, headers extra: [(String, String)] = []) throws -> PlainHTTP.Response {
        var headers = extra
        if let secret = secret ?? fixture.secret as String?, !secret.isEmpty { headers.append(("Authorization", "Bearer " + secret)) }
        if let token { headers.append(("antibot-token", token)) }
        if let proof { headers.append(("antibot-pop", proof)) }
        switch convention {
        case .nginx:
            headers += [("X-Original-Method", method), ("X-Original-URI", target)]
            return try fixture.client.send("GET", "/api/v4/edge/nginx", headers: headers)
        case .forwarded:
            headers += [("X-Forwarded-Method", method), ("X-Forwarded-Uri", target)]
            // Caddy copies the original query to the check's own URI: it is not read.
            return try fixture.client.send("GET", "/api/v4/edge/forwarded?page=1", headers: headers)
        case .envoy:
            // Envoy passes a call only on 200: the one status that differs, read here as the others' 204.
            var response = try fixture.client.send(method, "/api/v4/edge/envoy" + target, headers: headers)
            #expect(response.status != 204, "Envoy would refuse the call")
            if response.status == 200 { response.status = 204 }
            return response
        }
    }

    /// The status, outcome and route of an answer, as one line.
    static func summary(_ response: PlainHTTP.Response) -> String {
        "\(response.status) \(response.header("Gatehouse-Outcome") ?? "-") \(response.header("Gatehouse-Route") ?? "-")"
    }

    @Test(arguments: Convention.allCases)
    func everyOutcomeUnderEnforce(_ convention: Convention) throws {
        let orders = "/api/orders/7?page=2"
        #expect(Self.summary(try edge(convention, "GET", orders)) == "401 missing orders")
        #expect(Self.summary(try edge(convention, "GET", orders, token: "not.a.receipt")) == "401 invalid orders")
        let bound = try fixture.issue()
        #expect(Self.summary(try edge(convention, "GET", orders, token: bound)) == "401 invalid orders", "a bound receipt without its proof")
        #expect(Self.summary(try edge(convention, "GET", orders, token: bound, proof: try fixture.proof("GET", "/api/orders/8?page=2"))) == "401 invalid orders",
                "a proof for another path")
        let passed = try edge(convention, "GET", orders, token: bound, proof: try fixture.proof("GET", orders))
        #expect(Self.summary(passed) == "204 verified orders")
        #expect(passed.header("Gatehouse-Platform") == "android")
        #expect(passed.header("Gatehouse-Attestation") == "play-integrity:verified")
        #expect(passed.header("Gatehouse-Receipt")?.hasPrefix("req_") == true)
        let unbound = try fixture.issue(bound: false, attestation: nil)
        let plain = try edge(convention, "GET", orders, token: unbound)
        #expect(Self.summary(plain) == "204 verified orders")
        #expect(plain.header("Gatehouse-Attestation") == "none")

        let challenged = try edge(convention, "GET", orders, token: try fixture.issue(bound: false, action: .challenge))
        #expect(Self.summary(challenged) == "403 challenge orders")
        #expect(challenged.header("Content-Type") == "application/problem+json")
        #expect(challenged.json?["outcome"]?.string == "challenge")

        // pay: bound and attested required, spent once.
        let pay = "/api/pay"
        let refusedUnbound = try edge(convention, "POST", pay, token: unbound)
        #expect(Self.summary(refusedUnbound) == "401 unmet pay")
        #expect(refusedUnbound.json?["reasons"] == ["unbound", "unattested"])
        let unattested = try fixture.issue(attestation: nil)
        #expect(Self.summary(try edge(convention, "POST", pay, token: unattested, proof: try fixture.proof("POST", pay))) == "401 unmet pay")
        let spend = try fixture.issue()
        #expect(Self.summary(try edge(convention, "POST", pay, token: spend, proof: try fixture.proof("POST", pay))) == "204 verified pay")
        let again = try edge(convention, "POST", pay, token: spend, proof: try fixture.proof("POST", pay))
        #expect(Self.summary(again) == "401 reused pay")
        #expect(again.json?["reasons"] == ["consumed"])
        // Spent on pay, the receipt is reused on every route.
        #expect(Self.summary(try edge(convention, "GET", orders, token: spend, proof: try fixture.proof("GET", orders))) == "401 reused orders")
        // An unattested receipt was not spent by its refusals: with what pay requires it passes once.
        fixture.app.clock.advance(by: 601)
        #expect(Self.summary(try edge(convention, "GET", orders, token: unbound)) == "401 invalid orders", "expired")
    }

    @Test(arguments: Convention.allCases)
    func monitorJudgesAndCountsButNeverRefuses(_ convention: Convention) throws {
        #expect(Self.summary(try edge(convention, "GET", "/api/feed/latest")) == "204 missing feed")
        #expect(Self.summary(try edge(convention, "GET", "/api/feed/latest", token: "x.y.z")) == "204 invalid feed")
        let unbound = try edge(convention, "GET", "/api/feed/latest", token: try fixture.issue(bound: false))
        #expect(Self.summary(unbound) == "204 unmet feed")
        #expect(unbound.header("Gatehouse-Platform") == "android", "a valid receipt that misses the route's require still names itself")
        #expect(Self.summary(try edge(convention, "GET", "/api/feed/latest", token: try fixture.issue(bound: false, action: .challenge))) == "204 challenge feed")
        let invalid = try edge(convention, "GET", "/api/feed/latest", token: "x.y.z")
        #expect(invalid.header("Gatehouse-Receipt") == "" && invalid.header("Gatehouse-Platform") == "" && invalid.header("Gatehouse-Attestation") == "",
                "every 204 carries the receipt headers, empty without a valid receipt")
        // Calls no route matches: the environment's mode (monitor), counted as (unmatched).
        #expect(Self.summary(try edge(convention, "DELETE", "/api/orders/7")) == "204 missing (unmatched)")
        #expect(Self.summary(try edge(convention, "GET", "/elsewhere")) == "204 missing (unmatched)")
        // An off route checks and counts nothing.
        let off = try edge(convention, "PUT", "/api/health", token: "x.y.z")
        #expect(off.status == 204)
        #expect(off.header("Gatehouse-Route") == "health")
        #expect(off.header("Gatehouse-Outcome") == "")

        fixture.app.application.domain.enforcementOutcomes.flush()
        let week = try #require(fixture.app.send("GET", "/api/management/v1/environments/\(fixture.environmentID)/enforcement",
                                                headers: ["Authorization": "Bearer " + (try fixture.app.token())]).json)
        let routes = Dictionary(uniqueKeysWithValues: (week["routes"]?.array ?? []).compactMap { r in r["name"]?.string.map { ($0, r) } })
        #expect(routes["feed"]?["outcomes"]?["edge"] == ["missing": 1, "invalid": 2, "reused": 0, "challenge": 1, "unmet": 1, "verified": 0])
        #expect(routes["(unmatched)"]?["outcomes"]?["edge"]?["missing"] == 2)
        #expect(routes["(unmatched)"]?["mode"] == "monitor")
        #expect(routes["health"]?["outcomes"]?["edge"]?["invalid"] == 0, "off counts nothing")
        #expect(routes["feed"]?["wouldRefuse"] == ["count": 5, "share": 1])
        let metrics = fixture.app.send("GET", "/metrics").text
        #expect(metrics.contains(#"gatehouse_enforcement_total{environment="\#(fixture.environmentID)",route="feed",outcome="invalid"} 2"#), "\(metrics)")
    }

    @Test(arguments: Convention.allCases)
    func aClientsHeadersOfAnotherConventionAreIgnored(_ convention: Convention) throws {
        // The client asks for the enforced route and sends every other convention's names of the monitored one.
        let spoofed = [("X-Original-Method", "GET"), ("X-Original-URI", "/api/feed/x"), ("X-Forwarded-Method", "GET"), ("X-Forwarded-Uri", "/api/feed/x")]
        let own: [(String, String)] = switch convention {
        case .nginx: spoofed.filter { $0.0.hasPrefix("X-Forwarded") }
        case .forwarded: spoofed.filter { $0.0.hasPrefix("X-Original") }
        case .envoy: spoofed
        }
        #expect(Self.summary(try edge(convention, "GET", "/api/orders/1", headers: own)) == "401 missing orders")
    }

    @Test func aCheckWithoutItsConventionsFieldsIsA400WithoutOutcome() throws {
        let auth = [("Authorization", "Bearer " + fixture.secret)]
        let nginx = try fixture.client.send("GET", "/api/v4/edge/nginx", headers: auth + [("X-Forwarded-Method", "GET"), ("X-Forwarded-Uri", "/api/orders/1")])
        #expect(nginx.status == 400)
        #expect(nginx.header("Gatehouse-Outcome") == nil)
        #expect(nginx.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } == ["/headers/X-Original-Method", "/headers/X-Original-URI"])
        let forwarded = try fixture.client.send("POST", "/api/v4/edge/forwarded", headers: auth + [("X-Original-Method", "GET"), ("X-Original-URI", "/api/orders/1")])
        #expect(forwarded.status == 400)
        #expect(forwarded.header("Gatehouse-Outcome") == nil)
    }

    @Test(arguments: Convention.allCases)
    func pathsAreMatchedNormalized(_ convention: Convention) throws {
        let unbound = try fixture.issue(bound: false)
        for path in ["/api/%6Frders/1", "/api//orders/./1", "/api/feed/../orders/1", "/api/orders", "/api/orders/?x=/api/feed/1"] {
            #expect(Self.summary(try edge(convention, "GET", path)) == "401 missing orders", "\(path)")
        }
        // The proof covers the path exactly as sent.
        let bound = try fixture.issue()
        let encoded = "/api/%6Frders/1?page=%31"
        #expect(Self.summary(try edge(convention, "GET", encoded, token: bound, proof: try fixture.proof("GET", encoded))) == "204 verified orders")
        #expect(Self.summary(try edge(convention, "GET", encoded, token: bound, proof: try fixture.proof("GET", "/api/orders/1?page=1"))) == "401 invalid orders")
        // Paths two parsers could read differently: invalid under the strictest mode of the environment (enforce).
        for path in ["/api/orders%2F1", "/api/orders/%00", "/api/orders/%zz", "/api/../../etc"] {
            let answer = try edge(convention, "GET", path, token: unbound)
            #expect(Self.summary(answer) == "401 invalid (unmatched)", "\(path)")
            #expect(answer.json?["reasons"]?.array?.first?.string?.hasPrefix("path:") == true)
        }
    }

    @Test func theSecretKeyRules() throws {
        let unbound = try fixture.issue(bound: false)
        for secret in ["", "sk_live_wrong", fixture.secret + "x"] {
            let answer = try edge(.nginx, "GET", "/api/orders/1", token: unbound, secret: secret)
            #expect(answer.status == 401, "\(secret)")
            #expect(answer.header("Gatehouse-Outcome") == nil)
            #expect(answer.header("Content-Type") == "application/problem+json")
        }
        // Another environment's key judges by that environment: its receipts only.
        try patch(["enforcement": ["mode": "enforce"]], environment: fixture.otherEnvironmentID)
        let elsewhere = try edge(.nginx, "GET", "/api/orders/1", token: unbound, secret: fixture.otherSecret)
        #expect(Self.summary(elsewhere) == "401 invalid (unmatched)")
        #expect(elsewhere.json?["reasons"] == ["wrongEnvironment"])
        let own = try edge(.nginx, "GET", "/x", token: try fixture.issue(bound: false, environment: fixture.otherEnvironmentID), secret: fixture.otherSecret)
        #expect(Self.summary(own) == "204 verified (unmatched)")
    }

    @Test func ofTenConcurrentCallsOnAConsumeRouteOnePasses() throws {
        let token = try fixture.issue()
        let proof = try fixture.proof("POST", "/api/pay")
        let client = fixture.client, secret = fixture.secret
        let statuses = concurrently(10) { _ -> Int in
            (try? client.send("GET", "/api/v4/edge/nginx", headers: [("Authorization", "Bearer " + secret), ("antibot-token", token), ("antibot-pop", proof),
                                                                      ("X-Original-Method", "POST"), ("X-Original-URI", "/api/pay")]).status) ?? -1
        }
        #expect(statuses.filter { $0 == 204 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == 401 }.count == 9, "\(statuses)")
        // Spent for /api/v4/receipts/verify too.
        #expect(try fixture.verify(token, proof: try fixture.proof()).reasons == ["consumed"])
    }

    @Test func aReceiptSpentThroughVerifyIsReusedAtTheEdge() throws {
        let token = try fixture.issue(bound: false)
        let spent = try fixture.verify(["token": .string(token), "method": "GET", "pathAndQuery": "/", "consume": true])
        #expect(spent.json?["consumed"] == true)
        #expect(Self.summary(try edge(.forwarded, "GET", "/api/orders/1", token: token)) == "401 reused orders")
    }

    @Test func aRevokedReceiptKeyForgetsWhatItVerified() throws {
        let token = try fixture.issue(bound: false)
        #expect(Self.summary(try edge(.nginx, "GET", "/api/orders/1", token: token)) == "204 verified orders")
        #expect(Self.summary(try edge(.nginx, "GET", "/api/orders/1", token: token)) == "204 verified orders", "remembered")
        _ = try fixture.app.application.domain.receiptKeys.rotate(revokeNow: true)
        let refused = try edge(.nginx, "GET", "/api/orders/1", token: token)
        #expect(Self.summary(refused) == "401 invalid orders")
        #expect(refused.json?["reasons"] == ["signatureInvalid"])
        #expect(Self.summary(try edge(.nginx, "GET", "/api/orders/1", token: try fixture.issue(bound: false))) == "204 verified orders",
                "receipts of the new key pass")
    }

    @Test func attackModesChallengeIsRefusedWith403() throws {
        try patch(["attackMode": true, "appleAppIds": ["ABCDE12345.com.example.app"]])
        let assessed = try fixture.client.send("POST", "/api/v4/assess", headers: [("Content-Type", "application/json")],
                                               body: try fixture.assessBody(appID: "com.example.app"))
        let token = try #require(assessed.json?["sessionToken"]?.string, "\(assessed.text)")
        #expect(assessed.json?["attackMode"] == "unproven")
        let answer = try edge(.envoy, "GET", "/api/orders/1", token: token)
        #expect(Self.summary(answer) == "403 challenge orders")
        #expect(answer.json?["type"] == "/problems/receipt-challenge")
    }

    @Test func backendsReportsCountOncePerIdempotencyKey() throws {
        let hour = Timestamp.format(fixture.app.clock.now - fixture.app.clock.now % 3600)
        let body = (["counts": [["route": "payments", "outcome": "missing", "hour": .string(hour), "count": 12],
                                ["route": "payments", "outcome": "verified", "hour": .string(hour), "count": 388]]] as JSON).serialized()
        let headers = [("Authorization", "Bearer " + fixture.secret), ("Content-Type", "application/json"), ("Idempotency-Key", "report-1")]
        for _ in 0..<2 {
            let answer = try fixture.client.send("POST", "/api/ingest/v1/enforcement", headers: headers, body: body)
            #expect(answer.status == 202, "\(answer.text)")
        }
        let bad = try fixture.client.send("POST", "/api/ingest/v1/enforcement", headers: Array(headers.prefix(2)),
                                          body: (["counts": [["route": "payments", "outcome": "blocked", "hour": .string(hour), "count": 1]]] as JSON).serialized())
        #expect(bad.status == 400)
        #expect(bad.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } == ["/counts/0/outcome"])
        let week = try #require(fixture.app.send("GET", "/api/management/v1/environments/\(fixture.environmentID)/enforcement",
                                                headers: ["Authorization": "Bearer " + (try fixture.app.token())]).json)
        let payments = try #require(week["routes"]?.array?.first { $0["name"] == "payments" })
        #expect(payments["mode"] == .null, "a route only a backend reported")
        #expect(payments["outcomes"]?["backend"]?["missing"] == 12)
        #expect(payments["outcomes"]?["backend"]?["verified"] == 388)
        #expect(payments["wouldRefuse"] == ["count": 12, "share": 0.03])
    }
}

extension ReceiptsFixture {
    /// The body of an iOS assessment without attestation for the app `appID`, signed now on the test clock.
    func assessBody(appID: String) throws -> [UInt8] {
        try SignedEnvelope(apiKey: publicKey, platform: "ios", signed: SignedEnvelope.signedText(appID: appID, deviceID: "device-1", receiptKey: nil),
                           timestamp: nowMilliseconds).json(attestation: nil).serialized()
    }
}

/// The edge check of a served `gatehouse` (SQLite, or PostgreSQL in the PostgreSQL pass) and the operator's CLI: a
/// receipt key revoked with `gatehouse receipts rotate-key --revoke-now` in another process makes a receipt the
/// check remembered invalid within 10 seconds.
@Suite("The edge check and a revoked receipt key", .serialized, .needsSyntheticCA)
struct EdgeCheckRevocationTests {
    @Test func aReceiptKeyRevokedByTheCLIIsRefusedWithinTenSeconds() throws {
        let server = try DeviceServer()
        let (environment, publicKey, secret) = try server.newEnvironment(kind: "production")
        try server.patch(environment, ["enforcement": ["mode": "enforce"]])
        let token = try #require(try server.assess(AssessFixture.ios(publicKey).json(attestation: nil)).json?["sessionToken"]?.string)
        func check() throws -> String {
            let answer = try server.client.send("GET", "/api/v4/edge/nginx", headers: [("Authorization", "Bearer " + secret), ("antibot-token", token),
                                                                                      ("X-Original-Method", "GET"), ("X-Original-URI", "/api/orders")])
            return "\(answer.status) \(answer.header("Gatehouse-Outcome") ?? "-") \(answer.json?["reasons"]?.array?.compactMap(\.string) ?? [])"
        }
        #expect(try check() == "204 verified []")
        let revoked = try CommandLineTests.run(["receipts", "rotate-key", "--revoke-now"] + server.databaseArguments)
        #expect(revoked.status == 0, "\(revoked.error)")
        let seconds = try waitUntil(seconds: 10) { try check() == "401 invalid [\"signatureInvalid\"]" }
        let last = try check()
        #expect(seconds != nil, "the revoked key's receipt still passed the check 10 s later: \(last)")
    }
}
