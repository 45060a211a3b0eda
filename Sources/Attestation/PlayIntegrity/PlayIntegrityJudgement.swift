import JSON

/// The outcome of judging one Play Integrity token: the verdict, the decoded payload (nil when it could not be
/// decoded) and what it said (``PlayIntegrityObservation``). `json` is docs/device-api.md's answer without `decodedBy`,
/// which the server adds.
public struct PlayIntegrityJudgement: Sendable, Equatable {
    /// The verdict: every reason found, in docs/device-api.md's order.
    public var verdict: Verdict
    /// The verdict payload as decoded, or nil when the token did not decrypt or verify.
    public var payload: JSON?
    /// What the payload said (empty when there is no payload).
    public var observed: PlayIntegrityObservation
    /// Why the token could not be decoded, when it could not (safe to log; never quotes keys or payload).
    public var decodeError: PlayIntegrityDecodeError?

    /// A judgement from its parts.
    public init(verdict: Verdict, payload: JSON?, observed: PlayIntegrityObservation, decodeError: PlayIntegrityDecodeError? = nil) {
        self.verdict = verdict
        self.payload = payload
        self.observed = observed
        self.decodeError = decodeError
    }

    /// The judgement of a token that could not be decoded: forged with the failure's reason (and `verdictReplayed`
    /// when the caller has seen the token before).
    public init(decodeError: PlayIntegrityDecodeError, seenBefore: Bool = false) {
        var reasons = [decodeError.reason]
        if seenBefore { reasons.append(.verdictReplayed) }
        self.init(verdict: Verdict(reasons: reasons), payload: nil, observed: .empty, decodeError: decodeError)
    }

    /// A judgement that judges nothing: unavailable with `reason` (`notConfigured`, `googleUnreachable`,
    /// `serviceAccountRejected`).
    public init(unavailable reason: Reason) {
        self.init(verdict: Verdict(reasons: [reason]), payload: nil, observed: .empty)
    }

    /// The dialog that would fix the failure, when one would (docs/device-api.md "The dialog that would fix it").
    public var remediation: PlayIntegrityRemediation? { PlayIntegrityRemediation(verdict) }

    /// `{"verdict": {"status", "reasons"}, "payload": … | null, "observed": {…}}` and `remediation` when there is one.
    public var json: JSON {
        var members = [
            JSON.Member("verdict", .object([
                JSON.Member("status", .string(verdict.status.rawValue)),
                JSON.Member("reasons", .array(verdict.reasons.map { .string($0) })),
            ])),
            JSON.Member("payload", payload ?? .null),
            JSON.Member("observed", observed.json),
        ]
        if let remediation { members.append(JSON.Member("remediation", remediation.json)) }
        return .object(members)
    }
}
