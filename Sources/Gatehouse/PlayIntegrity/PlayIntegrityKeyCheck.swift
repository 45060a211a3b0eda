import Attestation
import Crypto
import JSON

/// Tries candidate local keys on an environment's recent failures (the tokens the keys set then could not open,
/// kept sealed for 24 hours) without saving anything: how many they decrypt, how many of those verify, and which
/// packages the verified ones name (docs/device-api.md "Keys checked before they are trusted").
public struct PlayIntegrityKeyCheck: Sendable {
    let store: Store

    /// A check over `store`'s recent failures.
    init(_: Wiring, store: Store) {
        self.store = store
    }

    /// ``run(environmentID:keys:)`` with keys as saved (validated by `PlayIntegrityFields`); nil when they cannot be
    /// Play keys.
    /// - Throws: `StorageError`.
    public func run(environmentID: String, local: LocalDecodingKeys) throws -> PlayIntegrityKeyCheckResult? {
        guard let publicKey = try? ECPublicKey(derSubjectPublicKeyInfo: local.verificationKey),
              let keys = try? PlayIntegrityKeys(decryptionKey: local.decryptionKey, verificationKey: publicKey) else { return nil }
        return try run(environmentID: environmentID, keys: keys)
    }

    /// What trying `keys` on the recent failures of `environmentID` found.
    /// - Throws: `StorageError`; a failure that no longer opens under the master key is skipped.
    public func run(environmentID: String, keys: PlayIntegrityKeys) throws -> PlayIntegrityKeyCheckResult {
        let now = store.clock()
        let sealed = try store.read { db in try FailedIntegrityTokensTable.recent(db, environmentID: environmentID, now: now) }
        let decoder = PlayIntegrityDecoder(keys: keys)
        var result = PlayIntegrityKeyCheckResult()
        for box in sealed {
            guard let token = try? store.open(box, environmentID: environmentID) else { continue }
            result.tried += 1
            guard let jws = try? decoder.decrypt(token) else { continue }
            result.decrypted += 1
            guard let payload = try? decoder.verify(jws) else { continue }
            result.verified += 1
            let package = payload["appIntegrity"]?["packageName"]?.string ?? payload["requestDetails"]?["requestPackageName"]?.string
            if let package, PackageName.isValid(package), !result.packages.contains(package) { result.packages.append(package) }
        }
        return result
    }
}

/// What a key check found: `tried` tokens, `decrypted` of them, `verified` of those, and the packages they name.
public struct PlayIntegrityKeyCheckResult: Sendable, Equatable {
    public var tried = 0
    public var decrypted = 0
    public var verified = 0
    /// The package names of the verified tokens, in the order first seen.
    public var packages: [String] = []

    public init() {}

    /// `{"tried", "decrypted", "verified", "packages"}`.
    public var json: JSON {
        .object([
            JSON.Member("tried", .int(Int64(tried))),
            JSON.Member("decrypted", .int(Int64(decrypted))),
            JSON.Member("verified", .int(Int64(verified))),
            JSON.Member("packages", .array(packages.map { .string($0) })),
        ])
    }
}
