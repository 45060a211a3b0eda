import Crypto
import Foundation
import Storage

/// The domain's shared state: the database (behind the storage seam, any engine), the group committer of its device
/// state changes, the revisions its caches follow, the box that seals secrets under the master key, and the clock.
/// Every domain service (environments, keys, tokens, admins, verdicts) works through one `Store`; none holds a
/// connection. The store keeps no cache: each service owns its own and follows the tables it reads (``follow(_:_:)``).
public final class Store: Sendable {
    /// The engine. Internal: the layers above never see the database.
    let database: any SQLDatabase
    /// Batches concurrent device state changes into one transaction (``commit(_:)``).
    let committer: GroupCommit
    let box: SecretBox
    /// Who follows which table: after every write transaction, the services' caches that follow a table it wrote
    /// forget what they hold (``follow(_:_:)``).
    let revisions = Revisions()
    /// Now: the wall clock (`clock()`, unix seconds) and the monotonic one. Injected so tests can move time.
    public let clock: TimeSource
    /// How recently this server followed the others' changes: the services' caches that decide access (keys, tokens,
    /// sessions, environments) read through while it is stale.
    let freshness: Freshness

    static let checkSetting = "master_key_check"
    static let checkPlaintext = Array("gatehouse master key check".utf8)

    /// Opens the domain over a migrated database. Throws `StoreError.wrongMasterKey` when data in the database was
    /// sealed under another master key.
    init(database: any SQLDatabase, masterKey: [UInt8], clock: TimeSource = .system) throws {
        self.database = database
        self.committer = GroupCommit(database: database)
        self.box = try SecretBox(key: masterKey)
        self.clock = clock
        let freshness = Freshness(shared: database.isShared, monotonic: clock.monotonic)
        self.freshness = freshness
        try verifyMasterKey()
    }

    /// Makes `forget` run after every write transaction that wrote one of `tables` (committed or not): how a cache
    /// read from them stays no older than this process's last write.
    func follow(_ tables: CachedTables, _ forget: @escaping @Sendable () -> Void) {
        revisions.follow(tables, forget)
    }

    /// Makes `forget` run with an environment's id after every write transaction that changed some of its attested
    /// keys (here, or on another server through that environment's revision): how the attested-key cache follows
    /// a refreshed receipt without forgetting other environments' keys.
    func followAttestedKeys(_ forget: @escaping @Sendable (String) -> Void) {
        revisions.followAttestedKeys(forget)
    }

    /// A new cache of at most `limit` values read from `tables`, emptied after every write to them and reading through
    /// while this server has not followed the others lately: how a service makes each cache it owns.
    func cache<Key, Value>(limit: Int, following tables: CachedTables) -> ReadCache<Key, Value> {
        let cache = ReadCache<Key, Value>(limit: limit, freshness: freshness)
        follow(tables, cache.invalidate)
        return cache
    }

    /// The master key from `GATEHOUSE_MASTER_KEY` (base64 of 32 bytes) or from a key file created beside the database
    /// (mode 0600) on first start. Throws with a message saying what to set.
    static func masterKey(environmentValue: String?, keyFilePath: String) throws -> [UInt8] {
        try MasterKey.load(environmentValue: environmentValue, keyFilePath: keyFilePath)
    }

    private func verifyMasterKey() throws {
        let box = self.box
        try write { db in
            if let sealed = try SettingsTable.bytes(db, key: Self.checkSetting) {
                guard let opened = try? box.open(sealed, associatedData: Array(Self.checkSetting.utf8)),
                      opened == Self.checkPlaintext
                else { throw StoreError.wrongMasterKey }
            } else {
                let sealed = try box.seal(Self.checkPlaintext, associatedData: Array(Self.checkSetting.utf8))
                try SettingsTable.insert(db, key: Self.checkSetting, bytes: sealed)
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
