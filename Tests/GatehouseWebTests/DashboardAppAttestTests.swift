import Attestation
import Crypto
import Foundation
@testable import Gatehouse
import GatehouseTesting
import Testing

/// The Apps tab's App Attest section: the policy saved through a plain form (and re-rendered with the message beside
/// the field), the DeviceCheck key saved write-only (never echoed, not even on an error), removed after a
/// confirmation, a refresh pass that says what it did, and a viewer who only reads.
@Suite("Dashboard: App Attest policy and DeviceCheck key")
struct DashboardAppAttestTests {
    let app: TestApp
    let owner: TestApp.BrowserSession
    let environmentID: String

    init() throws {
        app = try TestApp()
        owner = try app.signIn(role: .owner)
        environmentID = try app.application.domain.environments.create(name: "Shop", kind: .production, actor: .system).environment.id
    }

    var page: String { app.send("GET", "/environments/\(environmentID)/apps", headers: owner.headers).text }
    var appAttest: AppAttestSettings { (try? app.application.domain.environments.get(environmentID).appAttest) ?? AppAttestSettings() }

    @Test func thePolicyIsSavedWithoutJavaScript() throws {
        #expect(page.contains("App Attest policy"))
        let saved = app.postForm("/environments/\(environmentID)/apps/app-attest-policy",
                                 ["category-appStore": "on", "category-testFlight": "on", "otherCategories": "1",
                                  "minimumBundleVersion": "4.10", "riskMetricAbove": ""], session: owner)
        #expect(saved.status == 303)
        #expect(appAttest.policy == AppAttestPolicy(validationCategories: [ValidationCategory(4), ValidationCategory(2), ValidationCategory(1)],
                                                    minimumBundleVersion: "4.10"))
        let shown = page
        #expect(shown.contains(#"name="category-appStore" value="on" checked"#))
        #expect(!shown.contains(#"name="category-development" value="on" checked"#))
        #expect(shown.contains(#"value="4.10""#))
        #expect(try app.application.domain.audit.list(environmentID: environmentID, limit: 5).entries.contains { $0.changedFields.contains("appAttest") })

        // A bad version and bound: re-rendered with the messages beside their fields, what was typed kept, nothing saved.
        let bad = app.postForm("/environments/\(environmentID)/apps/app-attest-policy",
                               ["category-development": "on", "minimumBundleVersion": "four point two", "riskMetricAbove": "lots"], session: owner)
        #expect(bad.status == 422)
        #expect(bad.text.contains(#"<p class="error" id="version-error">Bundle version must be a bundle version"#), "\(bad.text)")
        #expect(bad.text.contains(#"<p class="error" id="risk-error">Risk metric must be a whole number"#))
        #expect(bad.text.contains(#"value="four point two""#))
        #expect(bad.text.contains(#"name="category-development" value="on" checked"#))
        #expect(appAttest.policy.minimumBundleVersion == "4.10", "nothing saved")

        // None ticked: any category again.
        #expect(app.postForm("/environments/\(environmentID)/apps/app-attest-policy", [:], session: owner).status == 303)
        #expect(appAttest.policy == AppAttestPolicy())
    }

    @Test func theDeviceCheckKeyIsWriteOnly() throws {
        let secret = "-----BEGIN PRIVATE KEY-----\nNOTAKEY-SECRETMARKER\n-----END PRIVATE KEY-----"
        let bad = app.postForm("/environments/\(environmentID)/app-attest/device-check-key",
                               ["keyId": "ABC123DEFG", "teamId": "short", "privateKey": secret], session: owner)
        #expect(bad.status == 422)
        #expect(bad.text.contains(#"id="teamId-error">Team id must be your team id"#), "\(bad.text)")
        #expect(bad.text.contains(#"id="privateKey-error">Private key must be the text of the .p8 file"#))
        #expect(bad.text.contains(#"value="ABC123DEFG""#), "the key id stays in the form")
        #expect(!bad.text.contains("SECRETMARKER"), "the private key is never sent back")
        #expect(appAttest.deviceCheckKey == nil)

        let key = try ECPrivateKey.generate()
        #expect(app.postForm("/environments/\(environmentID)/app-attest/device-check-key",
                             ["keyId": "ABC123DEFG", "teamId": "ABCDE12345", "privateKey": key.pkcs8PEM], session: owner).status == 303)
        #expect(appAttest.deviceCheckKey == DeviceCheckKeyID(keyID: "ABC123DEFG", teamID: "ABCDE12345"))
        let shown = page
        #expect(shown.contains("DeviceCheck key ABC123DEFG of team ABCDE12345 saved"))
        #expect(shown.contains("<dt>Key id</dt><dd><code>ABC123DEFG</code></dd>"))
        #expect(!shown.contains(String(key.pkcs8PEM.split(separator: "\n")[1])))
        #expect(shown.contains("Refresh receipts now"))

        // A pass with no active key tries nothing, and says so.
        #expect(app.postForm("/environments/\(environmentID)/app-attest/refresh-receipts", [:], session: owner).status == 303)
        #expect(page.contains("No receipt to refresh: no key asserted in the last 30 days"))

        let asked = app.send("GET", "/environments/\(environmentID)/app-attest/device-check-key/remove", headers: owner.headers)
        #expect(asked.status == 200 && asked.text.contains("receipts are no longer refreshed at Apple"))
        #expect(appAttest.deviceCheckKey != nil, "asking removes nothing")
        #expect(app.postForm("/environments/\(environmentID)/app-attest/device-check-key/remove", [:], session: owner).status == 303)
        #expect(appAttest.deviceCheckKey == nil)
    }

    @Test func aViewerReadsButCannotChange() throws {
        let viewer = try app.signIn(role: .viewer)
        let shown = app.send("GET", "/environments/\(environmentID)/apps", headers: viewer.headers).text
        #expect(shown.contains("App Attest policy"))
        #expect(!shown.contains("Save policy") && !shown.contains("Save key"))
        #expect(app.postForm("/environments/\(environmentID)/apps/app-attest-policy", ["category-appStore": "on"], session: viewer).status == 403)
        #expect(appAttest.policy == AppAttestPolicy())
    }
}
