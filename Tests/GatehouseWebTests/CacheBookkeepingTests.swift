import Foundation
import GatehouseTesting
import JSON
import Testing
import TestSupport
import ThrowawayPostgres

/// Bookkeeping is not what caches follow: a management token's last-used time is written (once a minute per
/// server; `AuthAndKeysAPITests.lastUsedIsCoalesced` holds that it is written) without telling any cache of any
/// server to forget, so routine authentication empties no cache in a cluster; a real change still reaches the other
/// server's caches (`gatehouse_cache_invalidations_total`).
@Suite("Caches: bookkeeping empties none", .serialized, .enabled(if: !ThrowawayPostgres.endToEnd, "on PostgreSQL in every pass already"), .needsSyntheticCA)
struct CacheBookkeepingTests {
    /// This server's count of cache invalidations of `table`, from `/metrics`.
    static func invalidations(_ server: DeviceServer, _ table: String) throws -> Int {
        let text = try server.client.send("GET", "/metrics").text
        let prefix = "gatehouse_cache_invalidations_total{table=\"\(table)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    @Test func aThousandAuthenticationsOnTwoServersEmptyNoCache() throws {
        let first = try DeviceServer([], postgres: true)
        let second = try DeviceServer(sharing: first)
        let servers = [first, second]
        // A server's first look at the revisions tells every cache to forget: wait for both to have looked.
        for server in servers {
            #expect(try waitUntil(seconds: 10) { try Self.invalidations(server, "admins") > 0 } != nil)
        }
        let before = try servers.map { try Self.invalidations($0, "management_tokens") }
        let auth = [("Authorization", "Bearer " + first.token)]
        for i in 0..<1_000 {
            let answer = try servers[i % 2].client.send("GET", "/api/management/v1/environments", headers: auth)
            #expect(answer.status == 200)
            if answer.status != 200 { break }
        }
        // A real change through the first server reaches the second's caches: once it has, the second has looked at
        // the revisions since every authentication above was written.
        let environments = try servers.map { try Self.invalidations($0, "environments") }
        _ = try first.environment(kind: "development", appIds: [])
        #expect(try waitUntil(seconds: 10) { try Self.invalidations(second, "environments") > environments[1] } != nil)
        let after = try servers.map { try Self.invalidations($0, "management_tokens") }
        #expect(after == before, "authentications made the caches of management tokens forget: \(before) → \(after)")
    }
}
