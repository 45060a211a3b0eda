import Foundation
import GatehouseTesting
import JSON
import Simulator
import Testing

/// The client's address behind a reverse proxy (`--trust-proxy`, `--trusted-proxies`), over a real socket: the device
/// rate limit, the login throttle and the audit log all take the hop our proxy appended, never the hops the client
/// wrote itself, nor the proxy's own address.
@Suite("Client address behind a proxy", .serialized, .needsSyntheticCA)
struct ClientAddressTests {
    static let password = "correct horse battery staple"

    /// POSTs a challenge request as if forwarded for `forwardedFor`; the status.
    static func challenge(_ server: DeviceServer, forwardedFor: String) throws -> Int {
        try server.client.send("POST", "/api/v4/attestation/challenge", headers: [("Content-Type", "application/json"), ("X-Forwarded-For", forwardedFor)],
                               body: Array(#"{"apiKey": "pk_test_unknown"}"#.utf8)).status
    }

    @Test func theDeviceRateLimitKeysOnTheClientTheProxyNamed() throws {
        // 1 request per 100 s, bursts of one, per address: no stall of a loaded machine refills a bucket meanwhile.
        let server = try DeviceServer(["--trust-proxy", "--device-rate-per-address", "0.01"])
        #expect(try Self.challenge(server, forwardedFor: "198.51.100.1") != 429)
        #expect(try Self.challenge(server, forwardedFor: "198.51.100.1") == 429)
        // Another phone behind the same proxy has its own bucket.
        #expect(try Self.challenge(server, forwardedFor: "198.51.100.2") != 429)
        // The first one writing hops of its own to the left escapes nothing.
        #expect(try Self.challenge(server, forwardedFor: "203.0.113.50, 198.51.100.1") == 429)
        #expect(try Self.challenge(server, forwardedFor: "10.9.8.7,198.51.100.1") == 429)
    }

    @Test func twoTrustedProxiesTakeTheSecondHopFromTheRight() throws {
        let server = try DeviceServer(["--trusted-proxies", "2", "--device-rate-per-address", "0.01"])
        // client → proxy A (appends the client) → proxy B (appends A) → us: the client's bucket, whichever A.
        #expect(try Self.challenge(server, forwardedFor: "198.51.100.1, 10.0.0.1") != 429)
        #expect(try Self.challenge(server, forwardedFor: "198.51.100.1, 10.0.0.2") == 429)
        #expect(try Self.challenge(server, forwardedFor: "6.6.6.6, 198.51.100.1, 10.0.0.1") == 429)
        #expect(try Self.challenge(server, forwardedFor: "198.51.100.9, 10.0.0.1") != 429)
    }

    /// On the test's clock (a served app on a loopback socket whose time moves only when the test says), so the
    /// throttle's one-second delay cannot run out while a loaded machine stalls.
    @Test func theLoginThrottleAndTheAuditLogTakeTheHopTheProxyAppended() throws {
        let app = try TestApp { $0.trustedProxies = 1 }
        let loopback = try LoopbackServer(app)
        let browser = DashboardBrowser(client: PlainHTTP(loopbackPort: loopback.port))
        try app.application.domain.admins.create(email: "owner@example.com", password: Self.password, role: .owner, actor: .system)
        // An attacker behind our proxy (which appends 203.0.113.7) guesses five accounts, writing a new first hop on
        // every guess: the address is throttled all the same, even for the owner's right password.
        for n in 0..<5 {
            let guess = try browser.signIn("guess\(n)@example.com", "wrong guess number \(n)", headers: [("X-Forwarded-For", "10.0.\(n).1, 203.0.113.7")])
            #expect(guess.status == 401, "\(guess.status)")
        }
        let throttled = try browser.signIn("owner@example.com", Self.password, headers: [("X-Forwarded-For", "192.0.2.200, 203.0.113.7")])
        #expect(throttled.status == 429, "rotating the client-written hop escaped the per-address throttle")
        // The owner from another address behind the same proxy is not held back by the attacker's.
        let owner = try browser.signIn("owner@example.com", Self.password, headers: [("X-Forwarded-For", "203.0.113.7, 198.51.100.20")])
        #expect(owner.status == 303, "\(owner.status)")

        let audit = try browser.client.send("GET", "/api/management/v1/audit?limit=50", headers: [("Authorization", "Bearer " + (try app.token(scope: .read)))])
        let entries = try #require(audit.json?["entries"]?.array)
        let failed = entries.filter { $0["action"]?.string == "admin.login.failed" }
        #expect(failed.count == 5)
        let addresses = Set(failed.compactMap { $0["changes"]?.array?.first { $0["field"]?.string == "address" }?["after"]?.string })
        #expect(addresses == ["203.0.113.7"], "\(addresses)")
    }
}
