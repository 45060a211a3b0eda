import Crypto
import GatehouseReceipts
import Synchronization

/// Receipts whose signature verified, remembered by the token's SHA-256 until their `exp`, so that a receipt seen
/// before costs the edge check no ECDSA verify of its own (DEVICE-API.md "The edge check"). Bounded: past `limit`
/// entries the expired ones go, and if that is not enough, the half that expires first (so a flood of new receipts
/// cannot empty it: the receipts of the last minutes stay). A hit names the key that signed the
/// receipt: the caller checks it is still published, so a revoked key forgets what it verified.
final class VerifiedReceipts: Sendable {
    private let shards: [Shard]
    private let limitPerShard: Int

    private final class Shard: Sendable {
        let entries = Mutex<[[UInt8]: SignedReceipt]>([:])
    }

    init(limit: Int = 100_000) {
        shards = (0..<16).map { _ in Shard() }
        limitPerShard = max(1, limit / 16)
    }

    /// The receipt remembered for `digest` (the token's SHA-256), if it has not expired at `now` (unix seconds).
    func receipt(_ digest: [UInt8], now: Int64) -> SignedReceipt? {
        shard(digest).entries.withLock { entries in
            guard let found = entries[digest] else { return nil }
            guard found.claims.expiresAt > now else {
                entries[digest] = nil
                return nil
            }
            return found
        }
    }

    /// Remembers `receipt` under `digest`.
    func keep(_ receipt: SignedReceipt, digest: [UInt8], now: Int64) {
        let limit = limitPerShard
        shard(digest).entries.withLock { entries in
            if entries.count >= limit {
                entries = entries.filter { $0.value.claims.expiresAt > now }
                if entries.count >= limit {
                    let kept = entries.sorted { $0.value.claims.expiresAt > $1.value.claims.expiresAt }.prefix(limit / 2)
                    entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
                }
            }
            entries[digest] = receipt
        }
    }

    private func shard(_ digest: [UInt8]) -> Shard {
        shards[Int(digest.first ?? 0) & (shards.count - 1)]
    }
}
