import GatehouseReceipts
import JSON
import Storage
import Synchronization

/// The server's check of a receipt for an app's backend (`POST /api/v4/receipts/verify`): the offline check of
/// `GatehouseReceipts.ReceiptVerifier` under the published keys, then what only the server knows, whether the
/// receipt was spent (docs/device-api.md "Receipts spent once").
///
/// A consuming check of a receipt that is otherwise valid spends it in a group-commit transaction committed before
/// the answer (of concurrent consumers exactly one spends it); every later check of it, consuming or not, is not
/// valid, with reason `consumed`. A receipt that is not otherwise valid is never spent.
public final class ReceiptChecker: Sendable {
    let store: Store
    let keys: ReceiptKeys
    private let counts = Mutex(Counts())

    /// How many checks spent a receipt, and how many found one spent: the counter family of `/metrics`.
    public struct Counts: Sendable, Equatable {
        /// Consuming checks that spent their receipt.
        public var consumed = 0
        /// Checks (consuming or not) refused because the receipt had been spent.
        public var refusedConsumed = 0
    }

    /// A checker trusting `keys`.
    init(_: Wiring, store: Store, keys: ReceiptKeys) {
        self.store = store
        self.keys = keys
    }

    /// Checks `token` for the call `method pathAndQuery` (with its proof header, nil when absent) for environment
    /// `environmentID` under `policy`, at the store's time; with `consume`, spends it when it is otherwise valid.
    /// - Throws: `DomainError.unavailable` when the database is busy; `StorageError` or `CryptoError` when the keys
    ///   or the spent state cannot be read (nothing is spent then).
    public func check(_ token: String, method: String, pathAndQuery: String, proof: String?, policy: ReceiptPolicy,
                      environmentID: String, consume: Bool) throws -> ReceiptCheck {
        let now = store.clock()
        let verifier = ReceiptVerifier(keys: try keys.published(), environment: environmentID, policy: policy)
        let verification = verifier.verify(token, method: method, pathAndQuery: pathAndQuery, proof: proof,
                                           nowMilliseconds: now.multipliedReportingOverflow(by: 1000).partialValue)
        return try settle(verification, environmentID: environmentID, consume: consume)
    }

    /// What only the server knows of a verified receipt of `environmentID`: whether it was spent (reason `consumed`
    /// added); with `consume`, spends it when it is otherwise valid (committed before this returns).
    /// - Throws: `DomainError.unavailable` when the database is busy; `StorageError` (nothing is spent then).
    func settle(_ verification: ReceiptVerification, environmentID: String, consume: Bool) throws -> ReceiptCheck {
        var verification = verification
        // Only a receipt of this environment is looked up: another environment's spends are not this key's to see.
        guard let claims = verification.claims, claims.environment == environmentID else {
            return ReceiptCheck(verification: verification, consumed: false)
        }
        let subject = claims.subject
        let spent: Bool
        if consume && verification.valid {
            let spends = try store.commit { db in
                try ConsumedReceiptsTable.consume(db, environmentID: environmentID, subject: subject, expiresAt: claims.expiresAt)
            }
            spent = !spends
            if spends {
                counts.withLock { $0.consumed += 1 }
                return ReceiptCheck(verification: verification, consumed: true)
            }
        } else {
            spent = try store.read { db in try ConsumedReceiptsTable.isConsumed(db, environmentID: environmentID, subject: subject) }
        }
        if spent {
            verification.reasons.append(.consumed)
            counts.withLock { $0.refusedConsumed += 1 }
        }
        return ReceiptCheck(verification: verification, consumed: false)
    }

    /// The counts so far in this process.
    public var totals: Counts { counts.withLock { $0 } }

    /// Deletes spent receipts whose `exp` has come, at most `limit` per transaction; returns how many went.
    /// - Throws: `DomainError.unavailable` when the database is busy; `StorageError`.
    @discardableResult
    public func purgeExpired(limit: Int = 10_000) throws -> Int {
        let now = store.clock()
        return try store.purge(limit: limit) { db in try ConsumedReceiptsTable.purge(db, now: now, limit: limit) }
    }
}

/// What the server's check of a receipt found: the offline verification (with `consumed` among its reasons when the
/// receipt had been spent) and whether this check spent it.
public struct ReceiptCheck: Sendable, Equatable {
    /// The verification, reasons and claims.
    public var verification: ReceiptVerification
    /// Whether this check spent the receipt (only a consuming check of a valid receipt does, once).
    public var consumed: Bool

    /// The answer of `POST /api/v4/receipts/verify`: the verification's members and `"consumed"`.
    public var json: JSON {
        guard case .object(let members) = verification.json else { return verification.json }
        return .object(members + [JSON.Member("consumed", .bool(consumed))])
    }
}
