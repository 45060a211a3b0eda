import Attestation
import Crypto
import DomainTesting
@testable import Gatehouse
import Testing

/// A change to some attested keys (a refreshed receipt brings a new risk metric) is followed by environment: the
/// keys of that environment are forgotten, here and on every other server of the database, and no other
/// environment's keys, no API key and no other cache.
@Suite("Attested keys followed by environment")
struct AttestedKeyFollowingTests {
    /// An attested key of `environmentID`, as the cache holds it.
    static func entry(_ environmentID: String) throws -> AttestedKeyCache.Entry {
        let publicKey = try ECPrivateKey.generate().publicKey
        let key = AttestedKey(keyID: SHA256.hash(publicKey.x962), environmentID: environmentID, publicKey: publicKey.x962,
                              appID: "ABCDE12345.com.example.app", attestationEnvironment: .production, counter: .fresh,
                              createdAt: 1_800_000_000, lastUsedAt: nil)
        return AttestedKeyCache.Entry(key: key, publicKey: publicKey)
    }

    @Test(arguments: DomainEngine.allCases)
    func aRefreshedKeyForgetsItsEnvironmentsKeysOnEveryServerAndNoOther(_ engine: DomainEngine) throws {
        let (first, second) = try AdminRaceTests.twoServers(engine)
        let shared = first.postgres != nil
        // The second server's first look tells every cache (it has seen no revision yet): taken before caching.
        if shared { try second.store.followOtherServers(waitMilliseconds: 0) }
        let cache = second.appAttest.attestedKeys
        let (a, b) = (try Self.entry("env_a"), try Self.entry("env_b"))
        for entry in [a, b] { cache.keep(entry, seen: cache.lookup(entry.key.keyID).generation) }
        #expect(cache.lookup(a.key.keyID).entry != nil && cache.lookup(b.key.keyID).entry != nil)
        let before = second.cacheInvalidations
        // What AppleReceiptRefreshTable.store declares for a refreshed key of env_a, written by the first server.
        try first.store.commit { db in db.wroteAttestedKeys(of: "env_a") }
        if shared { try second.store.followOtherServers(waitMilliseconds: 0) }
        #expect(cache.lookup(a.key.keyID).entry == nil, "the refreshed environment's keys stayed cached")
        #expect(cache.lookup(b.key.keyID).entry != nil, "another environment's keys were forgotten")
        let after = second.cacheInvalidations
        #expect(after["api_keys", default: 0] == before["api_keys", default: 0], "the API keys' caches were emptied")
        #expect(after["attested_keys", default: 0] == before["attested_keys", default: 0] + 1)
    }
}
