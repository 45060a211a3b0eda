import Foundation
@testable import Gatehouse
import GatehouseTesting
import SQLite
import Storage
import Testing

/// The Apps page shows, per Apple app id, the App Attest keys registered (production / development) and when one
/// last had an assertion verified.
@Suite("Dashboard: App Attest keys per app id")
struct DashboardAppKeysTests {
    @Test func appsPageCountsKeysPerAppIdAndShowsTheLastAssertion() throws {
        let app = try TestApp()
        let owner = try app.signIn(role: .owner)
        let (environment, _) = try app.application.domain.environments.create(name: "Production", kind: .production, actor: .system)
        var patch = EnvironmentPatch()
        patch.appleAppIDs = .set(["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"])
        _ = try app.application.domain.environments.patch(environment.id, with: patch, actor: .system)
        let rows: [(UInt8, String, Int64?)] = [(1, "production", nil), (2, "production", 1_790_000_000), (3, "development", 1_780_000_000)]
        try app.application.domain.store.database.write { db in
            for (n, kind, used) in rows {
                try db.execute(
                    "INSERT INTO attested_keys (key_id, environment_id, public_key, app_id, attestation_environment, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, 0, ?)",
                    [.blob([UInt8](repeating: n, count: 32)), .text(environment.id), .blob([4] + [UInt8](repeating: n, count: 64)),
                     .text("ABCDE12345.com.example.app"), .text(kind), used.map { .integer($0) } ?? .null])
            }
        }
        let page = app.send("GET", "/environments/\(environment.id)/apps", headers: owner.headers)
        #expect(page.status == 200)
        #expect(page.text.contains("<td data-label=\"Keys (production / development)\">2 / 1</td>"))
        #expect(page.text.contains("<td data-label=\"Keys (production / development)\">0 / 0</td>"), "the other app id has none")
        #expect(page.text.contains("<time datetime=\"2026-09-21T14:13:20Z\">2026-09-21 14:13 UTC</time>"))
        #expect(page.text.contains("<span class=\"muted\">never</span>"))
    }
}
