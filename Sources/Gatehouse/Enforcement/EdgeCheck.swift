import Crypto
import GatehouseReceipts

/// The check a reverse proxy asks before it passes a call to the app's API (docs/device-api.md "The edge check"): the
/// environment's route for the call, the receipt and its proof judged under the route's `require`, a `consume`
/// route's receipt spent once across servers (committed before the answer), the outcome counted in memory, and
/// whether the call may pass.
///
/// A receipt's signature, once verified, is remembered until its `exp` (``VerifiedReceipts``): a call with a
/// receipt seen before costs at most its proof's one ECDSA verify, and a lookup of whether it was spent.
public final class EdgeCheck: Sendable {
    let store: Store
    let receiptKeys: ReceiptKeys
    let checker: ReceiptChecker
    let outcomes: EnforcementOutcomes
    let signatures = VerifiedReceipts()

    init(_: Wiring, store: Store, receiptKeys: ReceiptKeys, checker: ReceiptChecker, outcomes: EnforcementOutcomes) {
        self.store = store
        self.receiptKeys = receiptKeys
        self.checker = checker
        self.outcomes = outcomes
    }

    /// Judges the call `method pathAndQuery` (the original call, as the proxy names it) that came with `token`
    /// (`antibot-token`) and `proof` (`antibot-pop`) for `environment`, counts its outcome and says whether it
    /// may pass.
    /// - Throws: `DomainError.unavailable` when the database is busy; `StorageError` or `CryptoError` when the keys
    ///   or the spent state cannot be read (nothing is counted or spent then).
    public func judge(method: String, pathAndQuery: String, token: String?, proof: String?, environment: Environment) throws -> EdgeJudgement {
        let settings = environment.enforcement
        let path: NormalizedPath
        do {
            path = try NormalizedPath(pathAndQuery)
        } catch {
            // A path two parsers could read differently: invalid, under the strictest mode the environment has.
            let mode = settings.strictestMode
            guard mode != .off else { return .unjudged(route: EnforcementSettings.unmatched) }
            outcomes.count(.invalid, route: EnforcementSettings.unmatched, environmentID: environment.id)
            return EdgeJudgement(route: EnforcementSettings.unmatched, mode: mode, outcome: .invalid, reasons: [error.reason], receipt: nil)
        }
        let route = settings.route(method: method, path: path)
        let name = route?.name ?? EnforcementSettings.unmatched
        let mode = settings.mode(of: route)
        guard mode != .off else { return .unjudged(route: name) }
        let judged = try judgeReceipt(token, proof: proof, method: method, pathAndQuery: pathAndQuery,
                                      policy: route?.require ?? ReceiptPolicy(), consume: route?.consume ?? false, environmentID: environment.id)
        outcomes.count(judged.outcome, route: name, environmentID: environment.id)
        return EdgeJudgement(route: name, mode: mode, outcome: judged.outcome, reasons: judged.reasons, receipt: judged.receipt)
    }

    /// The outcome of a receipt (nil: none came) for one call, with the reasons and, when it is one of ours and
    /// current, what the upstream may learn of it.
    func judgeReceipt(_ token: String?, proof: String?, method: String, pathAndQuery: String, policy: ReceiptPolicy, consume: Bool,
                      environmentID: String) throws -> (outcome: EnforcementOutcome, reasons: [String], receipt: ReceiptClaims?) {
        guard let token, !token.isEmpty else { return (.missing, [], nil) }
        let now = store.clock()
        let keys = try receiptKeys.published()
        let verifier = ReceiptVerifier(keys: keys, environment: environmentID, policy: policy)
        let digest = SHA256.hash(token.utf8)
        let signed: SignedReceipt
        if let known = signatures.receipt(digest, now: now), keys.key(kid: known.keyID) != nil {
            signed = known
        } else {
            switch verifier.verifySignature(token) {
            case .refused(let reason):
                return (.invalid, [reason.rawValue], nil)
            case .verified(let verified):
                signed = verified
                signatures.keep(verified, digest: digest, now: now)
            }
        }
        let verification = verifier.verify(signed, method: method, pathAndQuery: pathAndQuery, proof: proof,
                                           nowMilliseconds: now.multipliedReportingOverflow(by: 1000).partialValue)
        let isChallenge = verification.claims?.action == .challenge
        let check = try checker.settle(verification, environmentID: environmentID, consume: consume && !isChallenge)
        let reasons = check.verification.reasons
        let outcome: EnforcementOutcome
        if reasons.contains(where: Self.invalidReasons.contains) {
            outcome = .invalid
        } else if reasons.contains(.consumed) {
            outcome = .reused
        } else if isChallenge {
            outcome = .challenge
        } else if !reasons.isEmpty {
            outcome = .unmet
        } else {
            outcome = .verified
        }
        let current = outcome == .verified || outcome == .challenge || outcome == .unmet
        return (outcome, reasons.map(\.rawValue), current ? check.verification.claims : nil)
    }

    static let invalidReasons: Set<ReceiptReason> = [.malformed, .signatureInvalid, .expired, .wrongEnvironment, .sessionProof]
}

/// What the edge check decided for one call.
public struct EdgeJudgement: Sendable, Equatable {
    /// The route that judged it, or `(unmatched)`.
    public var route: String
    /// The mode it was judged under.
    public var mode: EnforcementMode
    /// Its outcome; nil when its mode is `off` (not judged, not counted).
    public var outcome: EnforcementOutcome?
    /// Why it is not `verified`: the receipt's reasons (`session:proof`, `consumed`, `unattested`, …) or the path's
    /// (`path:encodedSeparator`, …).
    public var reasons: [String]
    /// The receipt's claims, when it is one of ours, current and unspent (`verified`, `challenge`, `unmet`).
    public var receipt: ReceiptClaims?

    static func unjudged(route: String) -> EdgeJudgement {
        EdgeJudgement(route: route, mode: .off, outcome: nil, reasons: [], receipt: nil)
    }

    /// Whether the call may pass: always under `off` and `monitor`; under `enforce`, only `verified`.
    public var allows: Bool {
        mode != .enforce || outcome == .verified
    }

    /// The answer's status: 204 when it may pass, 403 for `challenge`, 401 otherwise.
    public var status: Int {
        allows ? 204 : (outcome == .challenge ? 403 : 401)
    }
}
