@testable import Gatehouse
import GatehouseTesting
import GatehouseWeb
import Storage
import Testing

/// Expired sessions are deleted by the hourly upkeep, not only when their cookie comes back (an admin who closed the
/// browser left a row, with its CSRF token, forever).
@Suite("Sessions purged by upkeep")
struct SessionPurgeTests {
    static func sessionRows(_ app: TestApp) throws -> Int64 {
        try app.application.domain.store.database.read { try $0.queryOne("SELECT count(*) FROM sessions")?.value(at: 0).int64 } ?? -1
    }

    /// Runs the domain's jobs that are due (the hourly upkeep among them, which must be) on the test clock.
    static func upkeep(_ app: TestApp) {
        #expect(app.application.domain.jobs.runDue().contains("gh-upkeep"))
    }

    @Test func idleAndOldSessionsAreDeletedAndLiveOnesKept() throws {
        let app = try TestApp()
        let policy = app.application.domain.sessions.policy
        _ = try app.signIn(role: .viewer)                       // left idle from now on
        app.clock.advance(by: policy.idleTimeout - 1)
        let live = try app.signIn(role: .viewer)
        #expect(try Self.sessionRows(app) == 2)
        Self.upkeep(app)                                         // the upkeep's first run, at start
        #expect(try Self.sessionRows(app) == 2, "both are within their idle timeout")

        app.clock.advance(by: 3600)                              // the first one is idle 12 hours and more now
        Self.upkeep(app)
        #expect(try Self.sessionRows(app) == 1)
        #expect(app.send("GET", "/environments", headers: live.headers).status == 200)

        // Kept busy, the live one still ends at its absolute expiry.
        var elapsed: Int64 = 3600
        while elapsed < policy.absoluteTimeout {
            let step = min(policy.idleTimeout - 1, policy.absoluteTimeout - elapsed)
            app.clock.advance(by: step)
            elapsed += step
            if elapsed < policy.absoluteTimeout { #expect(app.send("GET", "/environments", headers: live.headers).status == 200) }
        }
        app.clock.advance(by: 3600)
        Self.upkeep(app)
        #expect(try Self.sessionRows(app) == 0)
    }
}
