import Attestation
import Crypto
import SQLite

extension AppAttestService {
    /// The most times a counter is re-judged after the window it was judged against moved under it.
    static let maxAttempts = 64

    /// Judges an assertion by a registered key: the verifier checks signature, rpIdHash, counter window and key kind;
    /// a verified counter is then committed with a conditional UPDATE from the window it was judged against, and when
    /// that window moved meanwhile it is re-read and the counter re-judged (so of concurrent assertions with one
    /// counter exactly one is verified). Committed before this returns; recorded into traffic.
    /// - Throws: `DatabaseError` when the state cannot be committed (nothing is answered then).
    public func assert(in environment: Environment, keyID: [UInt8]?, clientData: [UInt8], assertion: [UInt8]) throws -> AssertionOutcome {
        let now = store.clock()
        let (outcome, key) = try judgeAssertion(in: environment, keyID: keyID, clientData: clientData, assertion: assertion, now: now)
        record(outcome.verdict, environmentID: environment.id, appID: key?.appID, kind: key?.attestationEnvironment, at: now)
        return outcome
    }

    /// Judges and commits an assertion as ``assert(in:keyID:clientData:assertion:)`` does, without recording it into
    /// traffic (the caller may add reasons first, then records): the outcome and the stored key it named, if any.
    /// - Throws: `DatabaseError` when the state cannot be committed.
    func judgeAssertion(in environment: Environment, keyID: [UInt8]?, clientData: [UInt8], assertion: [UInt8],
                        now: Int64) throws -> (AssertionOutcome, AttestedKey?) {
        guard let keyID, !keyID.isEmpty else {
            return (AssertionOutcome(verdict: .of(.missingKeyId), counter: nil), nil)
        }
        let (cached, generation) = store.attestedKeyCache.lookup(keyID)
        guard var entry = try cached ?? load(keyID, environmentID: environment.id, generation: generation),
              entry.key.environmentID == environment.id else {
            return (AssertionOutcome(verdict: .of(.unknownKeyId), counter: nil), nil)
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
        var verdict = result.verdict
        if verdict.isVerified, let counter = result.counter, let window = result.newWindow {
            let committed = try commit(counter: counter, keyID: keyID, judgedAgainst: entry.key.counter, accepted: window, now: now)
            verdict = committed.verdict
            if let stored = committed.window { store.attestedKeyCache.committed(stored, keyID: keyID) }
        }
        return (AssertionOutcome(verdict: verdict, counter: result.counter), entry.key)
    }

    /// The reasons a stale window could give.
    static let counterReasons: Set<String> = [Reason.counterReused.code, Reason.counterRegression.code]

    /// The stored key `keyID` of `environmentID` with its public key parsed (nil: unknown, or its stored point does
    /// not parse), kept in the cache unless it was invalidated after `generation`.
    private func load(_ keyID: [UInt8], environmentID: String, generation: Int) throws -> AttestedKeyCache.Entry? {
        let stored = try store.read { db in try AttestedKeys.load(db, keyID: keyID, environmentID: environmentID) }
        guard let stored, let publicKey = try? ECPublicKey(x962: stored.publicKey) else { return nil }
        let entry = AttestedKeyCache.Entry(key: stored, publicKey: publicKey)
        store.attestedKeyCache.keep(entry, seen: generation)
        return entry
    }

    /// What the verifier judges an assertion against.
    private static func state(_ entry: AttestedKeyCache.Entry) -> AttestedKeyState {
        AttestedKeyState(publicKey: entry.publicKey, appId: entry.key.appID, environment: entry.key.attestationEnvironment, counter: entry.key.counter)
    }

    /// Commits `counter` for `keyID`: moves the window from `old` to `new` if it is still `old`; otherwise re-reads
    /// the window on the writer (which sees every change committed or batched before) and judges the counter again.
    /// Returns the verdict and the window stored after it (nil when the key is gone).
    private func commit(counter: UInt32, keyID: [UInt8], judgedAgainst old: CounterWindow, accepted new: CounterWindow,
                        now: Int64) throws -> (verdict: Attestation.Verdict, window: CounterWindow?) {
        try committer.write { db -> (verdict: Attestation.Verdict, window: CounterWindow?) in
            var old = old, new = new
            for _ in 0..<Self.maxAttempts {
                if try AttestedKeys.advance(db, keyID: keyID, from: old, to: new, now: now) { return (.verified, new) }
                guard let current = try AttestedKeys.window(db, keyID: keyID) else { return (.of(.unknownKeyId), nil) }
                switch current.judge(counter) {
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
}
