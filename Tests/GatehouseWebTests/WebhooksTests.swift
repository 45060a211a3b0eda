import ChildProcess
import Crypto
import FakeGoogle
import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import HTTPClient
import JSON
import Synchronization
import Testing
import TestThreads

/// Alerts as webhooks (docs/device-api.md "Alerts"), through the whole router on the test clock, delivered over real
/// sockets to a receiver on loopback: the endpoints' API, the signature, each event from its real cause, retries with
/// stable ids, the 3-day disable, secret rotation, the checklist's hold, refused addresses, and two servers on
/// PostgreSQL delivering each event once between them.
@Suite("Webhooks", .serialized)
struct WebhooksTests {
    let receiver: WebhookReceiver
    let app: TestApp
    let auth: Headers

    init() throws {
        receiver = try WebhookReceiver()
        app = try TestApp { configuration in
            configuration.domain.webhookAllowHTTP = true
            configuration.domain.webhookAllowPrivate = true
            configuration.domain.publicURL = "https://gatehouse.example.com"
        }
        auth = ["Authorization": "Bearer " + (try app.token(name: "ops"))]
    }

    /// Creates an endpoint for `events` (all by default); its id and secret.
    func create(events: JSON = ["*"], environments: JSON = ["*"], url: String? = nil) throws -> (id: String, secret: String) {
        let created = app.send("POST", "/api/management/v1/webhooks",
                               json: ["url": .string(url ?? receiver.url), "description": "ops channel", "events": events, "environments": environments],
                               headers: auth)
        #expect(created.status == 201, "\(created.text)")
        return (try #require(created.json?["id"]?.string), try #require(created.json?["secret"]?.string))
    }

    /// A second on, runs the background jobs that are due (the deliveries among them).
    func deliver() {
        app.clock.advance(by: 1)
        _ = app.fixture.domain.jobs.runDue()
    }

    @Test func anEndpointIsCreatedListedChangedAndDeletedWithoutShowingItsSecretOrItsURLsTail() throws {
        let (id, secret) = try create(events: ["security.tokenCreated", "checklist.failing"])
        #expect(secret.hasPrefix("whsec_") && Base64.decode(String(secret.dropFirst(6)))?.count == 32)
        let listed = app.send("GET", "/api/management/v1/webhooks", headers: auth)
        #expect(listed.status == 200)
        #expect(!listed.text.contains(secret) && !listed.text.contains("secret-part"), "\(listed.text)")
        #expect(listed.json?["items"]?.array?.first?["url"]?.string == "http://127.0.0.1:\(receiver.port)/hooks/…")
        let patched = app.send("PATCH", "/api/management/v1/webhooks/\(id)", json: ["enabled": false, "description": "paused"], headers: auth)
        #expect(patched.json?["enabled"]?.bool == false && patched.json?["description"]?.string == "paused", "\(patched.text)")
        let audit = app.send("GET", "/api/management/v1/audit", headers: auth).text
        #expect(audit.contains("webhook.create") && audit.contains("webhook.update"))
        #expect(!audit.contains(secret) && !audit.contains("secret-part"))
        #expect(app.send("DELETE", "/api/management/v1/webhooks/\(id)", headers: auth).status == 204)
        #expect(app.send("GET", "/api/management/v1/webhooks/\(id)", headers: auth).status == 404)
    }

    @Test func badInputIsRefusedByPointer() throws {
        func pointers(_ body: JSON) -> Set<String> {
            let answer = app.send("POST", "/api/management/v1/webhooks", json: body, headers: auth)
            #expect(answer.status == 422 || answer.status == 400, "\(answer.text)")
            return Set(answer.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? [])
        }
        #expect(pointers(["url": "ftp://example.com/x", "events": ["*"]]) == ["/url"])
        #expect(pointers(["url": .string(receiver.url), "events": ["checklist.failing", "no.such"]]) == ["/events/1"])
        #expect(pointers(["url": .string(receiver.url), "events": ["*"], "environments": ["env_nope"]]) == ["/environments/0"])
        #expect(pointers(["url": .string(receiver.url)]) == ["/events"])
        #expect(pointers(["url": "https://user:pass@example.com/", "events": ["*"]]) == ["/url"])
        #expect(pointers(["url": .string(receiver.url), "events": ["*"], "color": "red"]) == ["/color"])
        let null = app.send("POST", "/api/management/v1/webhooks", json: ["url": .null, "events": ["*"]], headers: auth)
        #expect(null.json?["errors"]?.array?.count == 1 && null.json?["errors"]?.array?.first?["pointer"]?.string == "/url", "\(null.text)")
        #expect(try app.fixture.domain.webhooks.list().isEmpty, "nothing was written")
    }

    @Test func aTestEventIsSignedAsStandardWebhooksAndListedAmongTheDeliveries() throws {
        let (id, secret) = try create()
        let answer = app.send("POST", "/api/management/v1/webhooks/\(id)/test", headers: auth)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.json?["delivered"]?.bool == true && answer.json?["status"]?.integer == 200)
        let request = try #require(receiver.received.last)
        #expect(request.type == "webhook.test")
        #expect(request.id.hasPrefix("msg_") && request.contentType == "application/json")
        #expect(request.timestamp == String(app.clock.now))
        #expect(WebhookReceiver.verifies(request, secret: secret))
        #expect(!WebhookReceiver.verifies(request, secret: try WebhookSignature.newSecret()), "another secret does not verify")
        #expect(request.json?["text"]?.string?.hasSuffix("https://gatehouse.example.com/webhooks") == true, "\(request.json?.text ?? "")")
        let deliveries = app.send("GET", "/api/management/v1/webhooks/\(id)/deliveries", headers: auth)
        #expect(deliveries.json?["items"]?.array?.first?["type"]?.string == "webhook.test")
        #expect(try app.fixture.domain.webhooks.get(id).failures == 0)
    }

    @Test func aRedirectIsAFailedDeliveryNotFollowed() throws {
        let (id, _) = try create(events: ["webhook.test"])
        receiver.answer(307)
        let answer = app.send("POST", "/api/management/v1/webhooks/\(id)/test", headers: auth)
        #expect(answer.json?["delivered"]?.bool == false && answer.json?["status"]?.integer == 307, "\(answer.text)")
        #expect(receiver.received.count == 1, "the redirect was not followed")
    }

    @Test func securityEventsAreDeliveredFromTheirChangesWithStableIdsAcrossRetries() throws {
        let (id, secret) = try create(events: ["security.tokenCreated", "security.ownerChanged"])
        receiver.answer(500)
        _ = try app.token(name: "deploy bot")
        deliver()
        let first = try #require(receiver.received.last)
        #expect(first.type == "security.tokenCreated")
        #expect(first.json?["data"]?["via"]?.string == "cli", "a token made by the system actor, as the command line makes them")
        #expect(first.json?["text"]?.string?.contains("deploy bot") == true, "\(first.json?.text ?? "")")
        #expect(try app.fixture.domain.webhooks.get(id).failures == 1)
        // Not again before its back-off (about 5 seconds, jittered ±20 %).
        app.clock.advance(by: 1)
        deliver()
        #expect(receiver.received.count == 1)
        receiver.answer(200)
        app.clock.advance(by: 5)
        deliver()
        #expect(receiver.received.count == 2)
        let retried = receiver.received[1]
        #expect(retried.id == first.id && retried.body == first.body, "the same event, byte for byte")
        #expect(retried.timestamp != first.timestamp && WebhookReceiver.verifies(retried, secret: secret))
        app.clock.advance(by: 60)
        deliver()
        #expect(receiver.received.count == 2, "delivered once")
        #expect(try app.fixture.domain.webhooks.get(id).failures == 0)
        let attempts = try app.fixture.domain.webhooks.attempts(id)
        #expect(attempts.map(\.status) == [200, 500])
    }

    @Test func anOwnerMadeOrUnmadeIsAnnouncedAndAnEditorsRoleIsNot() throws {
        let (_, secret) = try create(events: ["security.ownerChanged"])
        let admins = app.fixture.domain.admins
        let first = try admins.create(email: "first@example.com", password: "a long enough password 1", role: .owner, actor: .system)
        let actor = AuditActor(kind: .admin, id: first.id, name: first.email, address: "203.0.113.9")
        let second = try admins.create(email: "second@example.com", password: "a long enough password 2", role: .viewer, actor: actor)
        _ = try admins.setRole(id: second.id, role: .editor, actor: actor)
        deliver()
        #expect(receiver.received.isEmpty, "a viewer made an editor changes no owner")
        _ = try admins.setRole(id: second.id, role: .owner, actor: actor)
        deliver()
        let event = try #require(receiver.received.last)
        #expect(event.type == "security.ownerChanged")
        #expect(event.json?["data"]?["via"]?.string == "dashboard" && event.json?["data"]?["actor"]?["name"]?.string == "first@example.com")
        #expect(event.json?["data"]?["address"]?.string == "203.0.113.9")
        #expect(event.json?["text"]?.string?.contains("second@example.com (editor) → second@example.com (owner)") == true, "\(event.json?.text ?? "")")
        #expect(event.json?["text"]?.string?.hasSuffix("https://gatehouse.example.com/audit") == true)
        #expect(WebhookReceiver.verifies(event, secret: secret))
        _ = try admins.setDisabled(id: first.id, disabled: true, actor: AuditActor(kind: .admin, id: second.id, name: second.email))
        deliver()
        #expect(receiver.received.count == 2 && receiver.received.last?.json?["text"]?.string?.contains("first@example.com (owner, disabled)") == true)
    }

    @Test func aThrottledAdminIsAnnouncedOnceAnHourAndGuessedEmailsNever() throws {
        _ = try create(events: ["security.loginThrottled"])
        _ = try app.fixture.domain.admins.create(email: "owner@example.com", password: "a long enough password 1", role: .owner, actor: .system)
        func guess(_ email: String, times: Int) -> Int {
            (0..<times).reduce(0) { throttled, _ in
                do {
                    _ = try app.fixture.domain.sessions.login(email: email, password: "wrong guess", address: "198.51.100.7")
                    return throttled
                } catch DomainError.throttled {
                    return throttled + 1
                } catch {
                    return throttled
                }
            }
        }
        #expect(guess("owner@example.com", times: 40) > 5, "the account is throttled")
        #expect(guess("nobody@example.com", times: 40) > 5, "so is the unknown e-mail")
        #expect(try app.fixture.domain.webhooks.waiting() == 1, "one event for the admin, none per guess")
        deliver()
        #expect(receiver.received.map { $0.type ?? "?" } == ["security.loginThrottled"])
        #expect(receiver.received.first?.json?["data"]?["address"]?.string == "198.51.100.7")
        app.clock.advance(by: 3_600)
        #expect(guess("owner@example.com", times: 40) > 5, "throttled again")
        #expect(try app.fixture.domain.webhooks.waiting() == 1)
        deliver()
        #expect(receiver.received.count == 2, "again the next hour while it lasts")
    }

    @Test func threeDaysOfFailuresDisableTheEndpointAndEnablingItResumes() throws {
        let environment = try app.fixture.domain.environments.create(name: "Shop", kind: .production, actor: .system).environment
        func item() throws -> ChecklistItem? { try app.fixture.domain.checklists.report(for: environment).item("webhooks.failing") }
        let (id, _) = try create(events: ["security.tokenCreated"])
        #expect(try item()?.status == .ok)
        receiver.answer(503)
        _ = try app.token(name: "first")
        for _ in 0..<40 {
            deliver()
            app.clock.advance(by: 3 * 3_600)
        }
        deliver()
        let disabled = try app.fixture.domain.webhooks.get(id)
        #expect(!disabled.enabled)
        #expect(disabled.disabledReason?.contains("every delivery failed since") == true, "\(disabled.disabledReason ?? "nil")")
        #expect(try item()?.status == .fail)
        #expect(try item()?.title == "A webhook was disabled after 3 days of failed deliveries")
        #expect(try app.fixture.domain.checklists.counts(for: [environment])[environment.id]?.failing ?? 0 >= 1)
        let tries = receiver.received.count
        #expect((8...14).contains(tries), "5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h for 3 days: \(tries)")
        app.clock.advance(by: 36_000)
        deliver()
        _ = try app.token(name: "while disabled")
        deliver()
        #expect(receiver.received.count == tries, "a disabled endpoint receives nothing")
        receiver.answer(204)
        #expect(app.send("PATCH", "/api/management/v1/webhooks/\(id)", json: ["enabled": true], headers: auth).status == 200)
        deliver()
        #expect(receiver.received.count == tries + 1, "the event of the last 3 days; the first one is past them")
        #expect(receiver.received.last?.json?["text"]?.string?.contains("while disabled") == true)
        #expect(try app.fixture.domain.webhooks.get(id).enabled)
        #expect(try item()?.status == .ok)
    }

    @Test func aRotatedSecretSignsBesideTheOldOneForADay() throws {
        let (id, old) = try create(events: ["webhook.test"])
        let rotated = app.send("POST", "/api/management/v1/webhooks/\(id)/rotate-secret", headers: auth)
        let new = try #require(rotated.json?["secret"]?.string)
        #expect(new != old)
        _ = app.send("POST", "/api/management/v1/webhooks/\(id)/test", headers: auth)
        let during = try #require(receiver.received.last)
        #expect(during.signature.split(separator: " ").count == 2)
        #expect(WebhookReceiver.verifies(during, secret: new) && WebhookReceiver.verifies(during, secret: old))
        app.clock.advance(by: 86_401)
        _ = app.send("POST", "/api/management/v1/webhooks/\(id)/test", headers: auth)
        let after = try #require(receiver.received.last)
        #expect(WebhookReceiver.verifies(after, secret: new) && !WebhookReceiver.verifies(after, secret: old))
    }

    @Test func aChecklistItemIsAnnouncedOncePerHoldAndAFlapSendsNothing() throws {
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "Shop", "kind": "production"], headers: auth)
        let environment = try #require(created.json?["id"]?.string)
        let secretKey = try #require(created.json?["keys"]?.array?.first { $0["type"]?.string == "secret" }?["id"]?.string)
        _ = try create(events: ["checklist.failing", "checklist.passing"], environments: .array([.string(environment)]))
        deliver()   // the first sight of every item: the baseline, nothing sent
        #expect(receiver.received.isEmpty)

        // The only secret key revoked: keys.noSecretKey fails, announced at once.
        #expect(app.send("DELETE", "/api/management/v1/environments/\(environment)/keys/\(secretKey)", headers: auth).status == 204)
        app.clock.advance(by: 30)
        deliver()
        let failing = try #require(receiver.received.last)
        #expect(failing.type == "checklist.failing")
        #expect(failing.json?["data"]?["item"]?["id"]?.string == "keys.noSecretKey")
        #expect(failing.json?["data"]?["previous"]?.string == "ok")
        #expect(failing.json?["text"]?.string?.hasSuffix("https://gatehouse.example.com/environments/\(environment)/traffic") == true)

        // Fixed within the hour: nothing until the hold ends, then passing.
        let fixed = app.send("POST", "/api/management/v1/environments/\(environment)/keys", json: ["type": "secret", "name": "backend"], headers: auth)
        #expect(fixed.status == 201)
        app.clock.advance(by: 600)
        deliver()
        #expect(receiver.received.count == 1)
        app.clock.advance(by: 3_000)
        deliver()
        #expect(receiver.received.count == 2)
        #expect(receiver.received.last?.type == "checklist.passing")

        // A flap within the next hold that ends where it began sends nothing.
        let newKey = try #require(fixed.json?["id"]?.string)
        #expect(app.send("DELETE", "/api/management/v1/environments/\(environment)/keys/\(newKey)", headers: auth).status == 204)
        app.clock.advance(by: 60)
        deliver()
        #expect(app.send("POST", "/api/management/v1/environments/\(environment)/keys", json: ["type": "secret", "name": "again"], headers: auth).status == 201)
        app.clock.advance(by: 3_600)
        deliver()
        #expect(receiver.received.count == 2, "\(receiver.received.map { $0.type ?? "?" })")
    }

    @Test func twoServersDeliverEachEventOnceBetweenThem() throws {
        let second = try app.postgres.map { _ in try app.fixture.anotherServer(clock: app.clock) }
        _ = try create(events: ["security.tokenCreated"])
        receiver.delay(.milliseconds(20))
        for index in 0..<12 { _ = try app.token(name: "bot \(index)") }
        let servers = [app.fixture.domain] + (second.map { [$0] } ?? [])
        for _ in 0..<12 {
            _ = concurrently(4) { i in servers[i % servers.count].jobs.runDue() }
            app.clock.advance(by: 1)
        }
        let ids = receiver.received.map(\.id)
        #expect(ids.count == 12, "\(ids.count) deliveries")
        #expect(Set(ids).count == 12, "each event once")
    }
}

/// Where webhooks may not go (docs/device-api.md "Endpoints", `url`), on a server without the flags that open them.
@Suite("Webhooks: refused destinations")
struct WebhookDestinationTests {
    @Test func internalAddressesAndPlainHTTPAreRefusedAtCreationAndAtDelivery() throws {
        let answers = Mutex<[String: [String]]>(["hooks.example.com": ["93.184.216.34"], "rebind.example.com": ["93.184.216.35"]])
        let app = try TestApp { configuration in
            configuration.domain.resolveHost = { host in
                guard let texts = answers.withLock({ $0[host] }) else { return try OutboundAddress.resolve(host: host) }
                return texts.compactMap(OutboundAddress.init)
            }
        }
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        func refusal(_ url: String) -> String? {
            let answer = app.send("POST", "/api/management/v1/webhooks", json: ["url": .string(url), "events": ["*"]], headers: auth)
            guard answer.status == 422 else { return nil }
            return answer.json?["errors"]?.array?.first { $0["pointer"]?.string == "/url" }?["detail"]?.string
        }
        #expect(refusal("http://hooks.example.com/x")?.contains("must be an https:// URL") == true)
        for url in ["https://127.0.0.1/x", "https://10.0.0.1/x", "https://[::1]/x", "https://169.254.169.254/latest", "https://localhost/x",
                    "https://[fd00::1]/x", "https://[::ffff:10.1.2.3]/x"] {
            let why = refusal(url)
            #expect(why?.contains("an address inside a network") == true, "\(url): \(why ?? "accepted")")
        }
        // A name that resolves outside is accepted; when it starts resolving inside, the delivery is refused.
        let created = app.send("POST", "/api/management/v1/webhooks", json: ["url": "https://rebind.example.com/hook", "events": ["*"]], headers: auth)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json?["id"]?.string)
        answers.withLock { $0["rebind.example.com"] = ["169.254.169.254"] }
        let test = app.send("POST", "/api/management/v1/webhooks/\(id)/test", headers: auth)
        #expect(test.json?["delivered"]?.bool == false)
        #expect(test.json?["error"]?.string?.hasPrefix("refused: rebind.example.com resolves to 169.254.169.254") == true, "\(test.text)")
    }
}

/// `enforcement.refusing` from backends' reports of a route in `enforce` (docs/device-api.md "Events"): more than 5 % of
/// at least 100 calls in about the last hour, at most once an hour per route; a route in `monitor` never.
@Suite("Webhooks: a route refusing")
struct WebhookRefusingTests {
    @Test func anEnforceRouteRefusingTooMuchIsAnnouncedOnceAnHour() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp { configuration in
            configuration.domain.webhookAllowHTTP = true
            configuration.domain.webhookAllowPrivate = true
        }
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "Shop", "kind": "production"], headers: auth)
        let environment = try #require(created.json?["id"]?.string)
        let secret = try #require(created.json?["keys"]?.array?.first { $0["type"]?.string == "secret" }?["secret"]?.string)
        let patched = app.send("PATCH", "/api/management/v1/environments/\(environment)", json: ["enforcement": ["mode": "monitor", "routes": [
            ["name": "payments", "match": "POST /api/payments/**", "mode": "enforce"],
            ["name": "orders", "match": "GET /api/orders/**"],
        ]]], headers: auth)
        #expect(patched.status == 200, "\(patched.text)")
        #expect(app.send("POST", "/api/management/v1/webhooks", json: ["url": .string(receiver.url), "events": ["enforcement.refusing"],
                                                                       "environments": .array([.string(environment)])], headers: auth).status == 201)
        func report(_ route: String, missing: Int, verified: Int) {
            let hour = Timestamp.format(app.clock.now - app.clock.now % 3600)
            let counts: [JSON] = [("missing", missing), ("verified", verified)].filter { $0.1 > 0 }.map { outcome, count in
                ["route": .string(route), "outcome": .string(outcome), "hour": .string(hour), "count": .number(Double(count))]
            }
            let body: JSON = ["counts": .array(counts)]
            #expect(app.send("POST", "/api/ingest/v1/enforcement", json: body, headers: ["Authorization": "Bearer " + secret]).status == 202)
        }
        func run() {
            app.clock.advance(by: 1)
            _ = app.fixture.domain.jobs.runDue()
            _ = app.fixture.domain.jobs.runDue()
        }
        report("payments", missing: 4, verified: 96)   // 4 %: under the bound
        report("orders", missing: 60, verified: 60)    // half, but the route only monitors
        run()
        #expect(receiver.received.isEmpty)
        report("payments", missing: 11, verified: 0)   // 15 of 111: 13.5 %
        app.clock.advance(by: 30)
        run()
        let event = try #require(receiver.received.last?.json)
        #expect(event["type"]?.string == "enforcement.refusing")
        #expect(event["data"]?["route"]?.string == "payments" && event["data"]?["refused"]?.integer == 15 && event["data"]?["calls"]?.integer == 111)
        #expect(event["text"]?.string?.contains("refused 14% of 111 calls in the last hour (15 without a receipt") == true, "\(event["text"]?.string ?? "")")
        app.clock.advance(by: 1_800)
        run()
        #expect(receiver.received.count == 1, "once an hour")
        app.clock.advance(by: 1_800)
        report("payments", missing: 30, verified: 70)
        run()
        #expect(receiver.received.count == 2, "still refusing an hour later")
    }
}

/// Events from their real causes in a served process (`gatehouse serve`, its jobs on their threads): a spike of Apple's
/// risk metric from receipts refreshed at a fake Apple, an owner made from the dashboard's service, and a receiver that
/// does not answer within the 10-second timeout, whose event is tried again and delivered.
@Suite("Webhooks: served", .serialized)
struct ServedWebhookTests {
    /// Polls `receiver` for an event of `type` for at most `seconds`.
    static func event(_ receiver: WebhookReceiver, _ type: String, seconds: Double = 10) -> WebhookReceiver.Received? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let found = receiver.received.first(where: { $0.type == type }) { return found }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    static func createWebhook(_ server: DeviceServer, _ receiver: WebhookReceiver, events: [String]) throws -> String {
        let created = try server.client.send("POST", "/api/management/v1/webhooks",
                                             headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")],
                                             body: (["url": .string(receiver.url), "events": .array(events.map { .string($0) })] as JSON).serialized())
        #expect(created.status == 201, "\(created.text)")
        return try #require(created.json?["secret"]?.string)
    }

    @Test func aRiskSpikeFromRefreshedReceiptsIsAnnounced() throws {
        let receiver = try WebhookReceiver()
        let receipts = try #require(try DeviceServer.ca().receipts)
        let fake = try FakeApple(signerPEM: receipts.signerPEM, signerKeyPEM: receipts.signerKeyPEM, chainPEM: receipts.intermediatePEM)
        let server = try DeviceServer(["--device-rate-per-address", "0", "--app-attest-data-endpoint", fake.baseURL, "--outbound-ca-file", fake.caFile,
                                       "--app-attest-refresh", "manual", "--webhook-allow-http", "--webhook-allow-private", "--webhook-hold", "1"])
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [AppAttestReceiptRefreshTests.appId])
        try AppAttestReceiptRefreshTests.setDeviceCheckKey(server, fake, environment)
        let secret = try Self.createWebhook(server, receiver, events: ["appattest.riskSpike", "checklist.warning"])
        Thread.sleep(forTimeInterval: 2.5)   // the alerts job (every second here) sees the environment once: its baseline
        for counter in 1...3 {
            let key = try server.registeredKey(publicKey: publicKey)
            #expect(try server.assert(key, counter: UInt32(counter), publicKey: publicKey).verdict == "verified")
        }
        try fake.answer((0..<3).map { _ in ["status": 200, "riskMetric": 9] })
        #expect(try AppAttestReceiptRefreshTests.refresh(server, environment)["refreshed"]?.integer == 3)
        let spike = try #require(Self.event(receiver, "appattest.riskSpike"))
        #expect(spike.json?["data"]?["keysAboveFive"]?.integer == 3 && spike.json?["data"]?["keys"]?.integer == 3, "\(spike.json?.text ?? "")")
        #expect(WebhookReceiver.verifies(spike, secret: secret))
        let warning = try #require(Self.event(receiver, "checklist.warning"))
        #expect(warning.json?["data"]?["item"]?["id"]?.string == "appAttest.riskMetric")
    }

    @Test func anAdminMadeOnTheCommandLineAndASlowReceiverRetried() throws {
        let receiver = try WebhookReceiver()
        let server = try DeviceServer(["--webhook-allow-http", "--webhook-allow-private", "--webhook-retry-scale", "0.001"])
        let secret = try Self.createWebhook(server, receiver, events: ["security.adminCreated"])
        // An admin made on the command line, announced by the running server.
        let admin = try CommandRun(try CommandRun.gatehouse(), ["admin", "create", "--email", "second@example.com", "--role", "editor"] + server.databaseArguments,
                                   input: Array("a long enough password 1\n".utf8), timeout: 60)
        #expect(admin.status == 0, "\(admin.error)")
        let created = try #require(Self.event(receiver, "security.adminCreated"))
        #expect(created.json?["data"]?["via"]?.string == "cli" && created.json?["text"]?.string?.contains("second@example.com") == true)
        // The receiver holds its answer past the 10-second timeout once: the event is tried again and delivered.
        receiver.delay(.milliseconds(10_500))
        let promoted = try CommandRun(try CommandRun.gatehouse(), ["admin", "create", "--email", "third@example.com", "--role", "owner"] + server.databaseArguments,
                                      input: Array("another long password 2\n".utf8), timeout: 60)
        #expect(promoted.status == 0, "\(promoted.error)")
        Thread.sleep(forTimeInterval: 11)
        receiver.delay(.zero)
        let deadline = Date().addingTimeInterval(15)
        var tries: [WebhookReceiver.Received] = []
        while Date() < deadline {
            tries = receiver.received.filter { $0.type == "security.adminCreated" && $0.json?["text"]?.string?.contains("third@example.com") == true }
            if tries.count >= 2 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(tries.count >= 2 && Set(tries.map(\.id)).count == 1, "\(tries.count) tries")
        #expect(tries.allSatisfy { WebhookReceiver.verifies($0, secret: secret) })
        let deliveries = try server.client.send("GET", "/api/management/v1/webhooks", headers: [("Authorization", "Bearer " + server.token)])
        #expect(deliveries.status == 200)
    }
}

/// The benches' bare exchange (`--bench-echo`): served only when asked for.
@Suite("The bench's echo")
struct BenchEchoTests {
    @Test func theEchoAnswersTheBytesAskedOnlyWhenTheServerIsToldTo() throws {
        let bench = try TestApp { $0.benchEcho = true }
        let echoed = bench.send("POST", "/bench/echo?bytes=7", body: Array(#"{"a": 1}"#.utf8))
        #expect(echoed.status == 200 && echoed.text == "xxxxxxx")
        let got = bench.send("GET", "/bench/echo?bytes=3")
        #expect(got.status == 200 && got.text == "xxx")
        let plain = try TestApp()
        #expect(plain.send("POST", "/bench/echo?bytes=7").status == 404)
        #expect(plain.send("GET", "/bench/echo?bytes=3").status == 404)
    }
}
