import Foundation
import GatehouseTesting
import JSON
import Testing

/// `/metrics` counts the device verdicts by environment, provider and status (`gatehouse_verdicts_total`), so that
/// Prometheus can alert on a spike of forgeries: a verified and a forged debug attestation, counted once each when
/// they are written to traffic.
@Suite("Metrics: verdicts by status")
struct VerdictMetricsTests {
    @Test func verifiedAndForgedVerdictsAreCountedPerEnvironmentProviderAndStatus() throws {
        let fixture = try DebugTokensFixture()
        let live = try fixture.token("CI")
        #expect(try fixture.assess(platform: "ios", debugToken: live.value).json?["attestation"]?["status"] == "verified")
        #expect(try fixture.assess(platform: "android", debugToken: "dt_" + String(repeating: "A", count: 43)).json?["attestation"]?["status"] == "forged")
        #expect(try fixture.assess(platform: "android", debugToken: "dt_" + String(repeating: "B", count: 43)).json?["attestation"]?["status"] == "forged")
        fixture.app.application.domain.recorder.flush()
        let metrics = fixture.app.send("GET", "/metrics").text
        let environment = fixture.environmentID
        #expect(metrics.contains("# TYPE gatehouse_verdicts_total counter"))
        #expect(metrics.contains(#"gatehouse_verdicts_total{environment="\#(environment)",provider="debug",status="verified"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"gatehouse_verdicts_total{environment="\#(environment)",provider="debug",status="forged"} 2"#))
        // A second flush with nothing new counts nothing twice.
        fixture.app.application.domain.recorder.flush()
        #expect(fixture.app.send("GET", "/metrics").text.contains(#"provider="debug",status="forged"} 2"#))
    }
}
