import Attestation
import Crypto
import Storage

extension AppAttestService {
    /// The most times a counter is re-judged after the window it was judged against moved under it.
    static let maxAttempts = 64

    /// Judges an assertion by a registered key: the verifier checks signature, rpIdHash, counter window and key kind;
    /// a verified counter is then committed with a conditional UPDATE from the window it was judged against, and when
    /// that window moved meanwhile it is re-read and the counter re-judged (so of concurrent assertions with one
    /// counter exactly one is verified). Committed before this returns; recorded into traffic.
    /// - Throws: `StorageError` when the state cannot be committed (nothing is answered then).
    public func assert(in environment: Environment, keyID: [UInt8]?, clientData: [UInt8], assertion: [UInt8]) throws -> AssertionOutcome {
        let now = store.clock()
        let (outcome, key) = try judgeAssertion(in: environment, keyID: keyID, clientData: clientData, assertion: assertion, now: now)
        record(outcome.verdict, environmentID: environment.id, appID: key?.appID, kind: key?.attestationEnvironment, observed: outcome.observed, at: now)
        return outcome
    }

    /// Judges and commits an assertion as ``assert(in:keyID:clientData:assertion:)`` does, without recording it into
    /// traffic (the caller may add reasons first, then records): the outcome and the stored key it named, if any.
    /// - Throws: `StorageError` when the state cannot be committed.
    func judgeAssertion(in environment: Environment, keyID: [UInt8]?, clientData: [UInt8], assertion: [UInt8],
                        now: Int64) throws -> (AssertionOutcome, AttestedKey?) {
        let judged = try judgeUncommitted(in: environment, keyID: keyID, clientData: clientData, assertion: assertion, now: now)
        guard let pending = judged.pending else { return (judged.outcome, judged.key) }
        let committed = try store.commit { db in try Self.commit(pending, in: db) }
        return (self.committed(judged, committed), judged.key)
    }

    /// An assertion judged on the state this process last saw, before its counter is committed.
    struct JudgedAssertion: Sendable {
        /// The outcome if nothing is committed (the final one when `pending` is nil).
        var outcome: AssertionOutcome
        /// The stored key the assertion named, if any.
        var key: AttestedKey?
        /// The counter to commit: set for a verified assertion only.
        var pending: PendingCounter?
    }

    /// A verified counter to commit: the window it was judged against and the one it moves to.
    struct PendingCounter: Sendable {
        var keyID: [UInt8]
        var counter: UInt32
        var judgedAgainst: CounterWindow
        var accepted: CounterWindow
        var now: Int64
    }

    /// Judges an assertion without committing: the verifier checks signature, rpIdHash, counter window and key kind
    /// against the cached key (a spent counter is judged again against the stored window).
    /// - Throws: `StorageError` when the key cannot be read.
    func judgeUncommitted(in environment: Environment, keyID: [UInt8]?, clientData: [UInt8], assertion: [UInt8],
                          now: Int64) throws -> JudgedAssertion {
        guard let keyID, !keyID.isEmpty else {
            return JudgedAssertion(outcome: AssertionOutcome(verdict: .of(.missingKeyId), counter: nil))
        }
        let (cached, generation) = attestedKeys.lookup(keyID)
        guard var entry = try cached ?? load(keyID, environmentID: environment.id, generation: generation),
              entry.key.environmentID == environment.id else {
            return JudgedAssertion(outcome: AssertionOutcome(verdict: .of(.unknownKeyId), counter: nil))
        }
        let request = AssertionRequest(assertion: assertion, clientDataHash: SHA256.hash(clientData))
        let registration = Self.registration(environment)
        var result = verifier.verifyAssertion(request, key: Self.state(entry), registration: registration)
        if cached != nil, result.verdict.reasons.contains(where: Self.counterReasons.contains) {
            // The cached window may be older than the stored one: judge a spent counter against the stored window.
            if let stored = try load(keyID, environmentID: environment.id, generation: generation), stored.key.counter != entry.key.counter {
                entry = stored
                result = verifier.verifyAssertion(request, key: Self.state(entry), registration: registration)
            }
        }
        let observed = AppAttestObservation(extensions: result.extensions, riskMetric: entry.key.riskMetric, riskMetricAt: entry.key.riskMetricAt)
        var judged = JudgedAssertion(outcome: AssertionOutcome(verdict: result.verdict, counter: result.counter, observed: observed), key: entry.key)
        if result.verdict.isVerified, let counter = result.counter, let window = result.newWindow {
            judged.pending = PendingCounter(keyID: keyID, counter: counter, judgedAgainst: entry.key.counter, accepted: window, now: now)
        }
        return judged
    }

    /// The outcome of `judged` once its counter's commit gave `committed`; the cache learns the stored window.
    func committed(_ judged: JudgedAssertion, _ committed: (verdict: Verdict, window: CounterWindow?)) -> AssertionOutcome {
        if let pending = judged.pending, let stored = committed.window { attestedKeys.committed(stored, keyID: pending.keyID) }
        return AssertionOutcome(verdict: committed.verdict, counter: judged.outcome.counter, observed: judged.outcome.observed)
    }

    /// The reasons a stale window could give.
    static let counterReasons: Set<String> = [Reason.counterReused.code, Reason.counterRegression.code]

    /// The stored key `keyID` of `environmentID` with its public key parsed (nil: unknown, or its stored point does
    /// not parse), kept in the cache unless it was invalidated after `generation`.
    private func load(_ keyID: [UInt8], environmentID: String, generation: Int) throws -> AttestedKeyCache.Entry? {
        let stored = try store.read { db in try AttestedKeysTable.load(db, keyID: keyID, environmentID: environmentID) }
        guard let stored, let publicKey = try? ECPublicKey(x962: stored.publicKey) else { return nil }
        let entry = AttestedKeyCache.Entry(key: stored, publicKey: publicKey)
        attestedKeys.keep(entry, seen: generation)
        return entry
    }

    /// What the verifier judges an assertion against.
    private static func state(_ entry: AttestedKeyCache.Entry) -> AttestedKeyState {
        AttestedKeyState(publicKey: entry.publicKey, appId: entry.key.appID, environment: entry.key.attestationEnvironment, counter: entry.key.counter,
                         riskMetric: entry.key.riskMetric)
    }

    /// Commits a verified counter on the writer: moves the window from the one it was judged against to the accepted
    /// one if it is still the same; otherwise re-reads the window (the writer sees every change committed or batched
    /// before) and judges the counter again. Returns the verdict and the window stored after it (nil when the key is
    /// gone). Runs inside the caller's transaction: it changes nothing but this key's window.
    /// - Throws: `StorageError`; `WriteConflict` when the window kept moving.
    /// The most devices one key may speak for in a day before its verdicts say `oneKeyManyDevices`.
    static let maxDevicesPerKeyAndDay = KeyDevicesTable.maxDevicesPerDay

    /// Commits an assessment's assertion after `nonce` (in one transaction, the nonce first): the counter, and when it
    /// holds and the request names a device, the device the key spoke for today. Returns the counter's verdict and
    /// window, and how many devices the key spoke for today (0 when not recorded).
    /// - Throws: `NonceSpend.Refused` when the nonce was spent before (nothing committed); `StorageError`; `WriteConflict`.
    func commit(_ pending: PendingCounter, deviceID: String?, now: Int64, after nonce: inout NonceSpend) throws
        -> (counter: (verdict: Verdict, window: CounterWindow?), devices: Int) {
        let keyID = pending.keyID
        return try nonce.commit(store) { db in
            let counter = try Self.commit(pending, in: db)
            guard counter.verdict.isVerified, let deviceID else { return (counter, 0) }
            return (counter, try KeyDevicesTable.record(db, keyID: keyID, deviceID: deviceID, now: now))
        }
    }

    static func commit(_ pending: PendingCounter, in db: any SQLConnection) throws -> (verdict: Verdict, window: CounterWindow?) {
        var old = pending.judgedAgainst, new = pending.accepted
        for _ in 0..<maxAttempts {
            if try AttestedKeysTable.advance(db, keyID: pending.keyID, from: old, to: new, now: pending.now) { return (.verified, new) }
            guard let current = try AttestedKeysTable.window(db, keyID: pending.keyID) else { return (.of(.unknownKeyId), nil) }
            switch current.judge(pending.counter) {
            case .accept(let next):
                old = current
                new = next
            case .reused:
                return (.of(.counterReused), current)
            case .regression:
                return (.of(.counterRegression), current)
            }
        }
        // Only another writer moving the window on every attempt gets here; the counter is not spent.
        throw WriteConflict("the counter window of a key kept moving while an assertion was committed")
    }
}
