import Attestation
import Crypto
import JSON

/// The server side of Play Integrity (docs/device-api.md "Play Integrity"): opens a token with the environment's local
/// keys, or through Google with its service account when the local keys cannot decrypt it (or are not set), spends
/// the token in the replay store before answering, judges the payload with the pure evaluator, keeps what the local
/// keys could not open for the key check, and records the verdict into traffic.
public final class PlayIntegrityService: Sendable {
    let store: Store
    let environments: Environments
    /// Google's decoder, made once at start-up; nil: no decoding through Google (the service account is ignored).
    let google: GoogleDecoder?
    let recorder: VerdictRecorder
    let evaluator: PlayIntegrityEvaluator
    let limits = PlayIntegrityLimits()
    let credentialCache = PlayIntegrityCredentialCache()
    /// Calls to Google's decodeIntegrityToken since start, per environment (`/metrics`).
    public let googleDecodes = GoogleDecodeTally()
    /// Tokens judged by this process per environment and package (`gatehouse_play_integrity_tokens_total`).
    public let tokens = PlayIntegrityTokenTally()
    /// Calls to Google each client address may cause, per hour (``GoogleBudget``).
    let budget: GoogleBudget

    /// A service decoding through `google` and recording into `recorder`; one client address (network: an IPv6 /64)
    /// may cause at most `googleDecodesPerAddress` calls to Google an hour (0: no limit per address), and an
    /// environment at most `googleUndecodablePerHour` calls an hour for tokens Google could not decode (nil: 1 % of its
    /// daily quota; 0: no cap).
    init(_: Wiring, store: Store, environments: Environments, google: GoogleDecoder?, recorder: VerdictRecorder,
                evaluator: PlayIntegrityEvaluator = PlayIntegrityEvaluator(), googleDecodesPerAddress: Int = GoogleBudget.defaultPerAddress,
                googleUndecodablePerHour: Int? = nil) {
        self.store = store
        self.environments = environments
        self.google = google
        self.recorder = recorder
        self.evaluator = evaluator
        budget = GoogleBudget(perAddress: googleDecodesPerAddress, undecodablePerHour: googleUndecodablePerHour, clock: store.clock)
    }

    /// Judges `token`, presented for `packageName` bound to `requestHash`, in `environment`, sent from client
    /// `address` (whose budget of calls to Google it spends; nil: none counted). A token is spent (its hash kept)
    /// before this returns; the verdict reaches traffic within the recorder's interval.
    /// - Throws: `StorageError` when the state cannot be read or committed (nothing is answered then).
    public func judge(in environment: Environment, packageName: String, requestHash: String, token: String,
                      address: String? = nil) throws -> PlayIntegrityOutcome {
        var none = NonceSpend(nil)
        return try judge(in: environment, packageName: packageName, requestHash: requestHash, token: token, address: address, nonce: &none)
    }

    /// Judges as ``judge(in:packageName:requestHash:token:)`` does, committing `nonce` (an assessment's nonce spend) before
    /// anything this judgement commits, in the same transaction when there is one, and before any call to Google.
    /// - Throws: `NonceSpend.Refused` when the nonce was spent before: then nothing else was committed or recorded.
    func judge(in environment: Environment, packageName: String, requestHash: String, token: String, address: String?,
               nonce: inout NonceSpend) throws -> PlayIntegrityOutcome {
        let now = store.clock()
        let request = PlayIntegrityRequest(packageName: packageName, requestHash: requestHash)
        let tokenBytes = Array(token.utf8)
        let decoding = try credentials(environment)
        let outcome: PlayIntegrityOutcome
        if decoding.isEmpty {
            try keepFailed(tokenBytes, environmentID: environment.id, now: now, nonce: &nonce)
            outcome = PlayIntegrityOutcome(judgement: PlayIntegrityJudgement(unavailable: .notConfigured), decodedBy: nil)
        } else {
            outcome = try decodeAndJudge(tokenBytes, token: token, decoding: decoding, environment: environment, request: request, now: now,
                                         address: address, nonce: &nonce)
        }
        try nonce.commitAlone(store)
        record(outcome.judgement, environmentID: environment.id, requestedPackage: packageName, at: now)
        return outcome
    }

    /// Local keys first; Google when they are not set or cannot decrypt (a signature that fails after decryption
    /// is forged, not a question for Google). A token sent to Google in the last 10 minutes is not sent again: its
    /// replay is `verdictReplayed`, or the earlier failure. A token the local keys could not open is kept for the key
    /// check, once Google's answer (if asked) says it was a token at all.
    private func decodeAndJudge(_ tokenBytes: [UInt8], token: String, decoding: DecodingCredentials, environment: Environment,
                                request: PlayIntegrityRequest, now: Int64, address: String?, nonce: inout NonceSpend) throws -> PlayIntegrityOutcome {
        let asksGoogle = decoding.serviceAccount != nil && google != nil
        var localError: PlayIntegrityDecodeError?
        if let local = decoding.local {
            switch Result(catching: { () throws(PlayIntegrityDecodeError) -> JSON in try local.decode(tokenBytes) }) {
            case .success(let payload):
                return try judge(payload, decodedBy: .local, tokenBytes: tokenBytes, environment: environment, request: request, now: now,
                                 nonce: &nonce)
            case .failure(let error):
                localError = error
                if error.stage == .signature || !asksGoogle { try keepFailed(tokenBytes, environmentID: environment.id, now: now, nonce: &nonce) }
                if error.stage == .signature {
                    return PlayIntegrityOutcome(judgement: PlayIntegrityJudgement(decodeError: error), decodedBy: nil)
                }
            }
        }
        guard let account = decoding.serviceAccount, let google else {
            let judgement = localError.map { PlayIntegrityJudgement(decodeError: $0) } ?? PlayIntegrityJudgement(unavailable: .notConfigured)
            return PlayIntegrityOutcome(judgement: judgement, decodedBy: nil)
        }
        // Junk costs no call: what is not a compact JWE cannot be an integrity token.
        guard GoogleBudget.isCompactJWE(tokenBytes, maxBytes: GoogleBudget.maxTokenBytes) else {
            return PlayIntegrityOutcome(judgement: PlayIntegrityJudgement(decodeError: localError ?? PlayIntegrityDecodeError(.decryption, "not a compact JWE")),
                                        decodedBy: nil)
        }
        // Reserved before the call, after the nonce spend (a replayed nonce must not cost a call), unless today's calls
        // have reached the reserve kept for the last 5 % of the quota, or this hour's calls for tokens Google could not
        // decode have reached the cap (counted across servers; a refusal is counted for the checklist).
        let hash = SHA256.hash(tokenBytes), environmentID = environment.id
        let threshold = GoogleBudget.reserveThreshold(dailyQuota: environment.playIntegrity.dailyQuota)
        let cap = budget.undecodableCap(dailyQuota: environment.playIntegrity.dailyQuota)
        let reservation = try nonce.commit(store, { db -> GoogleBudget.Reservation in
            guard try GoogleDecodeCountsTable.today(db, environmentID: environmentID, now: now) < threshold else { return .overQuota }
            if cap > 0, try GoogleUndecodableHoursTable.thisHour(db, environmentID: environmentID, now: now) >= cap {
                try GoogleUndecodableHoursTable.countRefused(db, environmentID: environmentID, now: now)
                return .undecodableCapped
            }
            return try JudgedIntegrityTokensTable.reserve(db, tokenHash: hash, environmentID: environmentID, now: now).map { .earlier($0) } ?? .reserved
        })
        switch reservation {
        case .reserved:
            break
        case .overQuota, .undecodableCapped:
            return PlayIntegrityOutcome(judgement: PlayIntegrityJudgement(unavailable: .googleBudgetExceeded), decodedBy: nil)
        case .earlier(.decoded):
            let replayed = PlayIntegrityJudgement(verdict: Verdict(reasons: [.verdictReplayed]), payload: nil, observed: .empty)
            return PlayIntegrityOutcome(judgement: replayed, decodedBy: nil)
        case .earlier(.failed(let verdict)):
            return PlayIntegrityOutcome(judgement: PlayIntegrityJudgement(verdict: verdict, payload: nil, observed: .empty), decodedBy: nil)
        }
        // One address may cause only so many calls an hour; past it the reservation goes, so the token may come back.
        if let address, !budget.take(address) {
            try store.commit { db in try JudgedIntegrityTokensTable.release(db, tokenHash: hash, environmentID: environmentID) }
            return PlayIntegrityOutcome(judgement: PlayIntegrityJudgement(unavailable: .googleBudgetExceeded), decodedBy: nil)
        }
        var sent = false
        let decoded = Result { () throws(GoogleDecodeError) -> JSON in
            try google.decode(integrityToken: token, packageName: request.packageName, serviceAccount: account) { sent = true }
        }
        // Only a call that went out counts against the quota (whatever Google answered).
        if sent {
            googleDecodes.count(environmentID)
            try store.commit { db in try GoogleDecodeCountsTable.count(db, environmentID: environmentID, now: now) }
        }
        let judgement: PlayIntegrityJudgement
        switch decoded {
        case .success(let payload):
            // Google opened what the local keys could not: the keys are not this app's, which the key check shows.
            if localError != nil { try keepFailed(tokenBytes, environmentID: environmentID, now: now, nonce: &nonce) }
            return try judge(payload, decodedBy: .google, tokenBytes: tokenBytes, environment: environment, request: request, now: now,
                             nonce: &nonce)
        case .failure(.googleUnreachable):
            judgement = PlayIntegrityJudgement(unavailable: .googleUnreachable)
            if localError != nil { try keepFailed(tokenBytes, environmentID: environmentID, now: now, nonce: &nonce) }
        case .failure(.serviceAccountRejected):
            judgement = PlayIntegrityJudgement(unavailable: .serviceAccountRejected)
            if localError != nil { try keepFailed(tokenBytes, environmentID: environmentID, now: now, nonce: &nonce) }
        case .failure(.tokenNotDecodable), .failure(.invalidPackageName):
            // Neither the keys nor Google can open it: junk, not kept among the failures the key check tries.
            judgement = PlayIntegrityJudgement(decodeError: localError ?? PlayIntegrityDecodeError(.decryption, "Google could not decode the token"))
        }
        let verdict = judgement.verdict, undecodable = sent && decoded.isNotDecodable
        try store.commit { db in
            try JudgedIntegrityTokensTable.settle(db, tokenHash: hash, environmentID: environmentID, verdict: verdict)
            if undecodable { try GoogleUndecodableHoursTable.countUndecodable(db, environmentID: environmentID, now: now) }
        }
        return PlayIntegrityOutcome(judgement: judgement, decodedBy: nil)
    }

    /// Judges the payload, then spends the token (atomically: of concurrent presentations one is first) for as long
    /// as its timestamp keeps it fresh; a token spent before is judged again as replayed.
    private func judge(_ payload: JSON, decodedBy: PlayIntegrityOutcome.DecodedBy, tokenBytes: [UInt8], environment: Environment,
                       request: PlayIntegrityRequest, now: Int64, nonce: inout NonceSpend) throws -> PlayIntegrityOutcome {
        let registration = Self.registration(environment)
        let nowMillis = now.multipliedReportingOverflow(by: 1000).partialValue
        var judgement = evaluator.evaluate(payload: payload, registration: registration, request: request, now: nowMillis, seenBefore: false)
        if let expiry = SpentIntegrityTokensTable.expiry(timestampMillis: judgement.observed.timestampMillis, now: now) {
            let hash = SHA256.hash(tokenBytes)
            let environmentID = environment.id
            // A token that decoded is one the device asked Google for: counted once, when first spent, by package and
            // Pacific day (what Google's quota binds).
            let package = String((judgement.observed.packageName ?? request.packageName).prefix(255))
            let seenBefore = try nonce.commit(store) { db in
                let seen = try SpentIntegrityTokensTable.spend(db, tokenHash: hash, environmentID: environmentID, expiresAt: expiry)
                if !seen { try PlayIntegrityTokenCountsTable.count(db, environmentID: environmentID, packageName: package, now: now) }
                return seen
            }
            if !seenBefore { tokens.count(environmentID: environmentID, packageName: package) }
            if seenBefore {
                judgement = evaluator.evaluate(payload: payload, registration: registration, request: request, now: nowMillis, seenBefore: true)
            }
        }
        return PlayIntegrityOutcome(judgement: judgement, decodedBy: decodedBy)
    }

    /// Keeps a token the local keys could not open (or nothing was set to open), sealed, for the key check. Only
    /// what has a JWE's shape and size is kept.
    private func keepFailed(_ tokenBytes: [UInt8], environmentID: String, now: Int64, nonce: inout NonceSpend) throws {
        guard tokenBytes.count <= limits.maxTokenBytes, tokenBytes.count(where: { $0 == UInt8(ascii: ".") }) == 4 else { return }
        let hash = SHA256.hash(tokenBytes)
        let sealed = try store.seal(tokenBytes, environmentID: environmentID)
        try nonce.commit(store) { db in
            try FailedIntegrityTokensTable.insert(db, tokenHash: hash, sealed: sealed, environmentID: environmentID, now: now)
        }
    }

    /// What the evaluator needs of an environment.
    static func registration(_ environment: Environment) -> PlayIntegrityRegistration {
        PlayIntegrityRegistration(apps: environment.androidApps.map {
            AndroidAppRegistration(packageName: $0.packageName, certificateDigests: $0.certificateDigests, outsidePlay: $0.outsidePlay)
        }, policy: environment.playIntegrity.policy, isProduction: environment.kind == .production)
    }
}

extension Result<JSON, GoogleDecodeError> {
    /// Whether Google answered that the token is not one it can decode (what the hourly cap counts).
    var isNotDecodable: Bool {
        if case .failure(.tokenNotDecodable) = self { true } else { false }
    }
}
