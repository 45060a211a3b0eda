import GatehouseReceipts

/// The receipt keys last read and the signers opened, shared by the copies of one `ReceiptKeys`. Read on every
/// assessment and receipt verification, written about once a minute: behind a reader-writer lock.
final class ReceiptKeyCache: @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under `lock`.
    private struct State {
        var rows: [ReceiptKeyRow]?
        var readAt: Int64 = 0
        var signers: [String: ReceiptSigner] = [:]
        /// The JWKS made from `rows` (its keys parsed once for verification) and when.
        var published: JWKS?
        var publishedAt: Int64 = 0
    }

    private let lock = ReadWriteLock()
    private var state = State()

    /// The rows read at most `ttl` seconds before `now` (and not after it: a clock moved back reads again).
    func rows(now: Int64, ttl: Int64) -> [ReceiptKeyRow]? {
        lock.reading {
            guard let rows = state.rows, now >= state.readAt, now - state.readAt < ttl else { return nil }
            return rows
        }
    }

    /// Keeps `rows` as read at `now`.
    func store(_ rows: [ReceiptKeyRow], at now: Int64) {
        lock.writing {
            state.rows = rows
            state.readAt = now
            state.published = nil
            // Signers of keys no longer in the table are dropped.
            let kids = Set(rows.map(\.kid))
            state.signers = state.signers.filter { kids.contains($0.key) }
        }
    }

    /// The opened signer of `kid`, if any.
    func signer(kid: String) -> ReceiptSigner? {
        lock.reading { state.signers[kid] }
    }

    /// Keeps an opened signer.
    func keep(_ signer: ReceiptSigner) {
        lock.writing { state.signers[signer.kid] = signer }
    }

    /// The JWKS made at most `ttl` seconds before `now` from the rows kept now, if any.
    func published(now: Int64, ttl: Int64) -> JWKS? {
        lock.reading {
            guard let published = state.published, now >= state.publishedAt, now - state.publishedAt < ttl else { return nil }
            return published
        }
    }

    /// Keeps `jwks` as made at `now`.
    func keep(_ jwks: JWKS, at now: Int64) {
        lock.writing {
            state.published = jwks
            state.publishedAt = now
        }
    }

    /// Forgets the rows, so the next read goes to the database (the store calls it after a write to the keys).
    func invalidate() {
        lock.writing {
            state.rows = nil
            state.published = nil
        }
    }
}
