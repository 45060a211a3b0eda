import Crypto
import Foundation
import Storage

/// The domain's shared state: the database (behind the storage seam, any engine), the group committer of its device
/// state changes, the box that seals secrets under the master key, and the clock. Every domain service
/// (environments, keys, tokens, admins, verdicts) works through one `Store`; none holds a connection.
public final class Store: Sendable {
    /// The engine. Internal: the layers above never see the database.
    let database: any SQLDatabase
    /// Batches concurrent device state changes into one transaction (``commit(_:)``).
    let committer: GroupCommit
    let box: SecretBox
    /// Who follows which table: after every write transaction, the caches below that follow a table it wrote forget
    /// what they hold (``follow(_:_:)``).
    let revisions = Revisions()
    /// The week's rollups per environment, for checklists (see `RollupCache`); follows the rollups.
    let rollupCache = RollupCache()
    /// Environments as last read (`.all` for the whole list); follows the environments.
    let environmentCache: ReadCache<EnvironmentQuery, [Environment]>
    /// When each environment's unrevoked secret keys expire (`Int64.max`: never), for the checklists' key count;
    /// follows the keys and the environments (deleting one deletes its keys).
    let secretKeyExpiries: ReadCache<Int, [String: [Int64]]>
    /// Public API keys by their value, for the device API (every request names one); follows as
    /// `secretKeyExpiries`. Whether a key is active is judged per request from its fields.
    let publicKeys: ReadCache<String, APIKey>
    /// Sessions (with their stored hash and whether their admin is disabled) by the hash of their cookie token;
    /// follows the sessions and the admins.
    let sessionCache: ReadCache<[UInt8], (session: Session, disabled: Bool, hash: [UInt8])>
    /// Management tokens (with their stored hash) by the hash of their secret; follows the tokens.
    let tokenCache: ReadCache<[UInt8], (token: ManagementToken, hash: [UInt8])>
    /// App Attest keys with their parsed public keys and counter windows, for assertions; follows the environments
    /// (deleting one deletes its keys). Counter windows need no following: a stale one is caught by the conditional
    /// update that commits a counter (`AttestedKeyCache`).
    let attestedKeyCache = AttestedKeyCache()
    /// Debug tokens (with their stored hash) by the hash of their value, for debug assessments; follows the tokens
    /// and the environments (deleting one deletes its tokens).
    let debugTokenCache: ReadCache<[UInt8], (token: DebugToken, hash: [UInt8])>
    /// Every unrevoked debug token, for the checklists (which judge expiry at their now); follows as `debugTokenCache`.
    let debugTokensUnrevoked: ReadCache<Int, [DebugToken]>
    /// Now: the wall clock (`clock()`, unix seconds) and the monotonic one. Injected so tests can move time.
    public let clock: Clock
    /// How recently this server followed the others' changes: the caches above that decide access (keys, tokens,
    /// sessions, environments) read through while it is stale.
    let freshness: Freshness

    static let checkSetting = "master_key_check"
    static let checkPlaintext = Array("gatehouse master key check".utf8)

    /// Opens the domain over a migrated database. Throws `StoreError.wrongMasterKey` when data in the database was
    /// sealed under another master key.
    public init(database: any SQLDatabase, masterKey: [UInt8], clock: Clock = .system) throws {
        self.database = database
        self.committer = GroupCommit(database: database)
        self.box = try SecretBox(key: masterKey)
        self.clock = clock
        let freshness = Freshness(shared: database.isShared, monotonic: clock.monotonic)
        self.freshness = freshness
        environmentCache = ReadCache(limit: 10_000, freshness: freshness)
        secretKeyExpiries = ReadCache(limit: 1, freshness: freshness)
        publicKeys = ReadCache(limit: 10_000, freshness: freshness)
        sessionCache = ReadCache(limit: 10_000, freshness: freshness)
        tokenCache = ReadCache(limit: 10_000, freshness: freshness)
        debugTokenCache = ReadCache(limit: 10_000, freshness: freshness)
        debugTokensUnrevoked = ReadCache(limit: 1, freshness: freshness)
        follow(.trafficRollups, rollupCache.invalidate)
        follow(.environments, environmentCache.invalidate)
        // Deleting an environment declares what cascades (``CachedTables/environmentCascade``): a change of an
        // environment's own fields (a PATCH, or the lock taken before one) leaves keys, tokens and attested keys cached.
        follow(.apiKeys, secretKeyExpiries.invalidate)
        follow(.apiKeys, publicKeys.invalidate)
        follow([.sessions, .admins], sessionCache.invalidate)
        follow(.managementTokens, tokenCache.invalidate)
        follow(.attestedKeys, attestedKeyCache.invalidate)
        follow(.debugTokens, debugTokenCache.invalidate)
        follow(.debugTokens, debugTokensUnrevoked.invalidate)
        try verifyMasterKey()
    }

    /// Makes `forget` run after every write transaction that wrote one of `tables` (committed or not): how a cache
    /// read from them stays no older than this process's last write.
    func follow(_ tables: CachedTables, _ forget: @escaping @Sendable () -> Void) {
        revisions.follow(tables, forget)
    }

    /// The master key from `GATEHOUSE_MASTER_KEY` (base64 of 32 bytes) or from a key file created beside the database
    /// (mode 0600) on first start. Throws with a message saying what to set.
    public static func masterKey(environmentValue: String?, keyFilePath: String) throws -> [UInt8] {
        try MasterKey.load(environmentValue: environmentValue, keyFilePath: keyFilePath)
    }

    private func verifyMasterKey() throws {
        let box = self.box
        try write { db in
            if let sealed = try Tables.Settings.bytes(db, key: Self.checkSetting) {
                guard let opened = try? box.open(sealed, associatedData: Array(Self.checkSetting.utf8)),
                      opened == Self.checkPlaintext
                else { throw StoreError.wrongMasterKey }
            } else {
                let sealed = try box.seal(Self.checkPlaintext, associatedData: Array(Self.checkSetting.utf8))
                try Tables.Settings.insert(db, key: Self.checkSetting, bytes: sealed)
            }
        }
    }

    func seal(_ plaintext: [UInt8], environmentID: String) throws -> [UInt8] {
        try box.seal(plaintext, associatedData: Array(environmentID.utf8))
    }

    func open(_ sealed: [UInt8], environmentID: String) throws -> [UInt8] {
        try box.open(sealed, associatedData: Array(environmentID.utf8))
    }
}

/// What an `environmentCache` entry holds: every environment, or one.
enum EnvironmentQuery: Hashable, Sendable {
    case all
    case one(String)
}

/// Why the store cannot open.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case wrongMasterKey
    /// The database could not be opened at start-up (PostgreSQL refused the connection or the password): the message
    /// names the location with its password hidden.
    case cannotOpen(String)
    /// The database has migrations this build does not have: a newer version migrated it.
    case newerThanCode(String)

    public var description: String {
        switch self {
        case .wrongMasterKey:
            "the database holds data sealed under another master key: set GATEHOUSE_MASTER_KEY to the key used before, or put back the key file beside the database (a new key cannot open the old secrets)"
        case .cannotOpen(let message), .newerThanCode(let message):
            message
        }
    }
}
