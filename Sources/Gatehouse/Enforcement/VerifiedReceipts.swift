import Crypto
import GatehouseReceipts

/// Receipts whose signature verified, remembered by the token's SHA-256 until their `exp`, so that a receipt seen
/// before costs the edge check no ECDSA verify of its own (docs/device-api.md "The edge check"). Bounded: past `limit`
/// entries the expired ones go, and if that is not enough, the half that expires first (so a flood of new receipts
/// cannot empty it: the receipts of the last minutes stay). A hit names the key that signed the
/// receipt: the caller checks it is still published, so a revoked key forgets what it verified.
final class VerifiedReceipts: Sendable {
    private let shards: [Shard]
    private let limitPerShard: Int

    /// One part of the memory: read by every call with a receipt (a popular receipt's shard by many threads at once),
    /// written on a receipt's first use, so readers share a reader-writer lock.
    private final class Shard: @unchecked Sendable {  // `entries` is only touched under `lock`
        let lock = ReadWriteLock()
        var entries: [[UInt8]: SignedReceipt] = [:]
    }

    init(limit: Int = 100_000) {
        shards = (0..<16).map { _ in Shard() }
        limitPerShard = max(1, limit / 16)
    }

    /// The receipt remembered for `digest` (the token's SHA-256), if it has not expired at `now` (unix seconds).
    func receipt(_ digest: [UInt8], now: Int64) -> SignedReceipt? {
        let shard = shard(digest)
        // An expired entry is left for `keep` to clear when the shard fills.
        return shard.lock.reading { shard.entries[digest] }.flatMap { $0.claims.expiresAt > now ? $0 : nil }
    }

    /// Remembers `receipt` under `digest`.
    func keep(_ receipt: SignedReceipt, digest: [UInt8], now: Int64) {
        let limit = limitPerShard
        let shard = shard(digest)
        shard.lock.writing {
            if shard.entries.count >= limit {
                shard.entries = shard.entries.filter { $0.value.claims.expiresAt > now }
                if shard.entries.count >= limit {
                    let kept = shard.entries.sorted { $0.value.claims.expiresAt > $1.value.claims.expiresAt }.prefix(limit / 2)
                    shard.entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
                }
            }
            shard.entries[digest] = receipt
        }
    }

    private func shard(_ digest: [UInt8]) -> Shard {
        shards[Int(digest.first ?? 0) & (shards.count - 1)]
    }
}
