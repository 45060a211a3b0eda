import AttestationTesting
import FakeGoogle
import Foundation
import Gatehouse
import GatehouseTesting
import JSON
import Testing

/// Per-address budgets by network (docs/device-api.md "Per-address budgets and IPv6"), over a real socket with the
/// fake Google: an IPv6 client counts by its /64 and an IPv4-mapped address as its IPv4 address, and the calls for
/// tokens Google could not decode are capped per environment and hour, whatever the number of networks they come from.
@Suite("Play Integrity: budgets by network", .needsSyntheticCA, .needsFakeGoogleTLS)
struct PlayIntegrityNetworkBudgetTests {
    let fake: FakeGoogle
    let fixture: PlayIntegrityFixture

    init() throws {
        fake = try FakeGoogle()
        fixture = try PlayIntegrityFixture()
    }

    func decodes() throws -> Int {
        try fake.received().filter { $0.path.hasSuffix(":decodeIntegrityToken") }.count
    }

    /// A server trusting one proxy (the address is the X-Forwarded-For hop), with `arguments`, and its environment.
    func server(_ arguments: [String]) throws -> (DeviceServer, environmentID: String, judge: (String, String) throws -> String) {
        let server = try DeviceServer(google: fake, ["--trusted-proxies", "1"] + arguments)
        let (environmentID, key) = try server.googleEnvironment(fixture, fake: fake, privateKeyPEM: try TestKeys.rsaPrivateKeyPEM())
        let judge = { (token: String, address: String) throws -> String in
            try server.client.send("POST", "/api/v4/attestation/play-integrity", headers: [("Content-Type", "application/json"), ("X-Forwarded-For", address)],
                                   body: PlayIntegrityFixture.request(apiKey: key, token: token).serialized()).verdict
        }
        return (server, environmentID, judge)
    }

    @Test func fourAddressesOfOneSlash64CostThreeCalls() throws {
        let (_, _, judge) = try server(["--google-decodes-per-address", "3", "--google-undecodable-per-hour", "0"])
        let before = try decodes()
        let addresses = ["2001:db8:7:1::1", "2001:db8:7:1::2", "2001:db8:7:1:ffff:1:2:3", "[2001:0db8:0007:0001::9]"]
        let verdicts = try addresses.enumerated().map { try judge(FakeGoogle.token("status:400.v6-\($0.offset)"), $0.element) }
        #expect(verdicts == ["forged decryptionFailed", "forged decryptionFailed", "forged decryptionFailed", "unavailable googleBudgetExceeded"])
        #expect(try decodes() == before + 3)
        // The next /64 has a budget of its own; an IPv4-mapped address is its IPv4 address.
        #expect(try judge(FakeGoogle.token("status:400.v6-next"), "2001:db8:7:2::1") == "forged decryptionFailed")
        for i in 0..<3 { _ = try judge(FakeGoogle.token("status:400.v4-\(i)"), "192.0.2.44") }
        #expect(try judge(FakeGoogle.token("status:400.mapped"), "::ffff:192.0.2.44") == "unavailable googleBudgetExceeded")
        #expect(try decodes() == before + 7)
    }

    @Test func theHourlyCapOnUndecodableTokensHoldsAcrossManyNetworks() throws {
        let (server, environmentID, judge) = try server(["--google-decodes-per-address", "0", "--google-undecodable-per-hour", "5"])
        let hourBefore = Int(Date().timeIntervalSince1970) / 3600
        let before = try decodes()
        let verdicts = try (0..<12).map { try judge(FakeGoogle.token("status:400.junk-\($0)"), "2001:db8:\($0 + 100)::1") }
        let hourAfter = Int(Date().timeIntervalSince1970) / 3600
        guard hourBefore == hourAfter else { return }  // the hour turned meanwhile: a new hour's cap (once in many runs)
        #expect(verdicts.prefix(5).allSatisfy { $0 == "forged decryptionFailed" }, "\(verdicts)")
        #expect(verdicts.dropFirst(5).allSatisfy { $0 == "unavailable googleBudgetExceeded" }, "\(verdicts)")
        #expect(try decodes() == before + 5)
        // Until the hour turns, a token no local key opens waits too, from any network.
        let genuine = PlayIntegrityFixture.fakeGoogleToken(fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis))
        #expect(try judge(genuine, "198.51.100.7") == "unavailable googleBudgetExceeded")
        #expect(try decodes() == before + 5)
        // The checklist says so.
        let item = try #require(try server.checklistItem(environmentID, "android.googleQuota"))
        #expect(item["status"] == "warn")
        #expect(item["title"] == "Google calls for undecodable tokens reached the hourly cap")
        #expect(item["detail"]?.string?.contains("Google could not decode 5 tokens") == true, "\(item)")
        #expect(item["detail"]?.string?.contains("8 more tokens") == true, "\(item)")
    }
}

@Suite("Address networks")
struct AddressNetworkTests {
    @Test(arguments: [
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"), ("2001:DB8:1:2::1", "2001:db8:1:2::/64"), ("[2001:db8::1]", "2001:db8:0:0::/64"),
        ("fe80::1%eth0", "fe80:0:0:0::/64"), ("::1", "0:0:0:0::/64"), ("::ffff:192.0.2.7", "192.0.2.7"), ("::FFFF:c000:0207", "192.0.2.7"),
        ("192.0.2.7", "192.0.2.7"), ("unknown", "unknown"), ("2001:db8::g", "2001:db8::g"), ("", ""),
    ])
    func keys(_ address: String, _ key: String) {
        #expect(AddressNetwork.key(address) == key)
    }
}
