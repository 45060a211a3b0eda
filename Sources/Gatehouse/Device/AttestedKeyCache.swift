import Attestation
import Crypto

/// Attested keys as this process last read or committed them, with their public keys parsed, so that an assertion
/// by a known key touches no reader connection and parses no key.
///
/// A cached counter window may be older than the stored one (another server, or a race between two commits of this
/// one), never newer: it is only replaced by windows that were read or committed, and only by newer ones. An older
/// window is safe to judge against, as `AppAttestService.assert` does: a counter it accepts is committed only by a
/// conditional UPDATE from exactly that window (re-judged on the writer when the window moved), and a counter it
/// calls reused or regressed is re-judged against the stored window before the answer. Deleting an environment
/// (which deletes its keys) makes the store call `invalidate()`, as for the other read caches; a refreshed receipt
/// (a new risk metric) makes it call `invalidate(environmentID:)` for that environment's keys alone, on every server;
/// a lookup started before either keeps nothing it read.
///
/// Bounded: two generations of at most `limit` keys each (about 2.5 kB a key with its parsed key); when the current
/// one is full it becomes the previous and the older one is dropped, so keys in use stay cached.
final class AttestedKeyCache: @unchecked Sendable {
    // @unchecked Sendable: `generation`, `current` and `previous` are only touched under `lock`.
    private let lock = ReadWriteLock()
    private var generation = 0
    private var current: [[UInt8]: Entry] = [:]
    private var previous: [[UInt8]: Entry] = [:]
    /// The most keys per generation.
    let limit: Int

    /// A stored key and its parsed public key.
    struct Entry: Sendable {
        var key: AttestedKey
        let publicKey: ECPublicKey
    }

    /// A cache of at most 2 × `limit` keys.
    init(limit: Int = 5_000) {
        self.limit = max(1, limit)
    }

    /// The cached key `keyID` (nil: not cached), and the generation to hand to `keep` after reading it.
    func lookup(_ keyID: [UInt8]) -> (entry: Entry?, generation: Int) {
        let (found, fromPrevious, seen) = lock.reading { () -> (Entry?, Bool, Int) in
            if let entry = current[keyID] { return (entry, false, generation) }
            return (previous[keyID], true, generation)
        }
        if let found, fromPrevious { keep(found, seen: seen) }
        return (found, seen)
    }

    /// Caches `entry` as read when the cache was at generation `seen` (dropped when it was invalidated since; a
    /// cached window is not replaced by an older one).
    func keep(_ entry: Entry, seen: Int) {
        lock.writing {
            guard generation == seen else { return }
            let keyID = entry.key.keyID
            if let cached = current[keyID], !Self.isNewer(entry.key.counter, than: cached.key.counter) { return }
            if current[keyID] == nil, current.count >= limit {
                previous = current
                current = [:]
                current.reserveCapacity(limit)
            }
            current[keyID] = entry
        }
    }

    /// Records that `window` was committed for `keyID` (kept only when newer than the cached one).
    func committed(_ window: CounterWindow, keyID: [UInt8]) {
        lock.writing {
            guard var entry = current[keyID], Self.isNewer(window, than: entry.key.counter) else { return }
            entry.key.counter = window
            current[keyID] = entry
        }
    }

    /// Forgets the keys of `environmentID` (the store calls it after a change to some of them: a refreshed receipt
    /// brings a new risk metric); reads started before keep nothing.
    func invalidate(environmentID: String) {
        lock.writing {
            generation += 1
            current = current.filter { $0.value.key.environmentID != environmentID }
            previous = previous.filter { $0.value.key.environmentID != environmentID }
        }
    }

    /// Forgets every key (the store calls it after a write to the environments, whose deletion deletes keys).
    func invalidate() {
        lock.writing {
            generation += 1
            current.removeAll()
            previous.removeAll()
        }
    }

    /// Whether `window` comes after `other`: a newer newest counter, or the same one with more counters seen. Windows
    /// only move that way.
    static func isNewer(_ window: CounterWindow, than other: CounterWindow) -> Bool {
        if window.newest != other.newest { return window.newest > other.newest }
        return window.seenBelow != other.seenBelow && window.seenBelow & other.seenBelow == other.seenBelow
    }
}
