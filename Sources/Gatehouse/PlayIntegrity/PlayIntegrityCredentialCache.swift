import Attestation
import Crypto

/// An environment's Play Integrity credentials unsealed and parsed, ready to decode with: the local decoder and the
/// service account. Secret: never described.
struct DecodingCredentials: Sendable {
    var local: PlayIntegrityDecoder?
    var serviceAccount: ServiceAccountKey?

    /// Neither is set.
    var isEmpty: Bool { local == nil && serviceAccount == nil }
}

/// Unsealed credentials per environment, valid for one environment revision (every credential change bumps it), so
/// a judgement does not read, unseal and parse them each time. Bounded: emptied when full. Read on every judgement
/// and written once per environment revision: behind a reader-writer lock.
final class PlayIntegrityCredentialCache: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched under `lock`.
    private let lock = ReadWriteLock()
    private var entries: [String: (revision: Int64, credentials: DecodingCredentials)] = [:]
    private let limit: Int

    init(limit: Int = 10_000) {
        self.limit = limit
    }

    /// The credentials of `environmentID` at `revision`, loaded with `load` when not cached.
    func credentials(environmentID: String, revision: Int64,
                     load: () throws -> DecodingCredentials) rethrows -> DecodingCredentials {
        if let hit = lock.reading({ entries[environmentID] }), hit.revision == revision { return hit.credentials }
        let loaded = try load()
        lock.writing {
            if entries.count >= limit { entries.removeAll() }
            if let present = entries[environmentID], present.revision > revision { return }
            entries[environmentID] = (revision, loaded)
        }
        return loaded
    }
}
