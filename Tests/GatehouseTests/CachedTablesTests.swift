@testable import Gatehouse
import Testing

/// Which followed table a statement writes, as the store's change tracker reads it from the SQL text: what decides
/// which caches forget what they hold after a write.
@Suite("Tables a statement writes")
struct CachedTablesTests {
    @Test(arguments: [
        ("INSERT INTO api_keys (id, environment_id) VALUES (?, ?)", CachedTables.apiKeys),
        ("UPDATE environments SET name = ? WHERE id = ?", .environments),
        ("DELETE FROM sessions WHERE token_hash = ?", .sessions),
        ("  \n\tUPDATE management_tokens SET last_used_at = ? WHERE id = ?", .managementTokens),
        ("INSERT INTO android_app_digests(environment_id) VALUES (?)", .environments),
        ("insert into verdict_observed_rollups (environment_id) VALUES (?) ON CONFLICT (environment_id) DO UPDATE SET count = 1", .trafficRollups),
        ("UPDATE receipt_keys SET revoked_at = ? WHERE revoked_at IS NULL RETURNING kid", .receiptKeys),
        ("DELETE FROM admins", .admins),
    ])
    func aWriteOfAFollowedTableIsNoted(_ sql: String, _ table: CachedTables) {
        #expect(CachedTables.written(by: sql) == table)
    }

    @Test(arguments: [
        "SELECT id FROM api_keys WHERE id = ?",
        "INSERT INTO spent_nonces (app_id) VALUES (?) ON CONFLICT (app_id) DO NOTHING",
        "UPDATE attested_keys SET counter_newest = ? WHERE key_id = ?",
        "SAVEPOINT gatehouse_savepoint_1",
        "",
        "UPDATE",
    ])
    func anythingElseIsNoFollowedWrite(_ sql: String) {
        #expect(CachedTables.written(by: sql).isEmpty)
    }
}
