import Crypto
import JSON

/// Judges a Play Integrity verdict payload against the environment's registration and the request, with every
/// check of DEVICE-API.md "Play Integrity" in its order and every reason collected. The payload may come from
/// ``PlayIntegrityDecoder`` (local keys) or from Google's `decodeIntegrityToken` (`tokenPayloadExternal`): the
/// same checks judge both. Pure: the time and whether the token was seen before are the caller's.
public struct PlayIntegrityEvaluator: Sendable {
    /// How far `timestampMillis` may lie before or after now, in milliseconds (10 minutes).
    public var maxAgeMillis: Int64

    /// An evaluator allowing verdicts `maxAgeMillis` old (default 10 minutes).
    public init(maxAgeMillis: Int64 = 600_000) {
        self.maxAgeMillis = maxAgeMillis
    }

    /// Decodes `token` with `decoder` and judges its payload; a token that does not decode is forged with the
    /// failing layer's reason.
    ///
    /// - Parameters:
    ///   - now: the verification time, Unix milliseconds.
    ///   - seenBefore: whether the caller has seen this token before (its SHA-256 in the replay store).
    public func judge(token: [UInt8], decoder: PlayIntegrityDecoder, registration: PlayIntegrityRegistration,
                      request: PlayIntegrityRequest, now: Int64, seenBefore: Bool) -> PlayIntegrityJudgement {
        do {
            let payload = try decoder.decode(token)
            return evaluate(payload: payload, registration: registration, request: request, now: now, seenBefore: seenBefore)
        } catch {
            return PlayIntegrityJudgement(decodeError: error, seenBefore: seenBefore)
        }
    }

    /// Judges a decoded payload (already decrypted and verified, or decoded by Google).
    ///
    /// - Parameters:
    ///   - now: the verification time, Unix milliseconds.
    ///   - seenBefore: whether the caller has seen this token before.
    public func evaluate(payload json: JSON, registration: PlayIntegrityRegistration, request: PlayIntegrityRequest,
                         now: Int64, seenBefore: Bool) -> PlayIntegrityJudgement {
        let payload = PlayIntegrityPayload(json)
        var reasons: [Reason] = []

        // Bound to this request: requestHash (standard) or nonce (classic).
        if (payload.requestHash ?? payload.nonce) != request.requestHash { reasons.append(.requestMismatch) }
        if !isFresh(payload.timestampMillis, now: now) { reasons.append(.staleVerdict) }
        if seenBefore { reasons.append(.verdictReplayed) }

        // The app: package, then signing certificate. Without appIntegrity.packageName (Google did not evaluate
        // the app) the package the request was made for stands in; a payload naming no certificate at all is judged
        // by its appVerdict alone, so a device that failed integrity does not read as a registration fault.
        let packageName = payload.packageName ?? payload.requestPackageName
        let app = packageName.flatMap(registration.app)
        var certificateMatches = false
        if let app {
            if app.packageName != request.packageName { reasons.append(.packageMismatch) }
            certificateMatches = payload.certificateDigests.contains { digest in
                app.certificateDigests.contains { constantTimeEquals($0, digest) }
            }
            if payload.namesCertificates && !certificateMatches { reasons.append(.certificateMismatch) }
        } else {
            reasons.append(.packageNotRegistered)
        }
        let excusedOutsidePlay = (app?.outsidePlay ?? false) && certificateMatches

        let appVerdict = payload.appRecognitionVerdict ?? "UNEVALUATED"
        if appVerdict != "PLAY_RECOGNIZED" && !(excusedOutsidePlay && appVerdict == "UNRECOGNIZED_VERSION") {
            reasons.append(.appVerdict(appVerdict))
        }

        if let device = Self.deviceReason(payload.deviceRecognitionVerdict) { reasons.append(device) }
        if payload.appLicensingVerdict == "UNLICENSED" && !excusedOutsidePlay { reasons.append(.unlicensed) }
        if let protect = payload.playProtectVerdict, protect == "MEDIUM_RISK" || protect == "HIGH_RISK" {
            reasons.append(.playProtect(protect))
        }
        if payload.appsDetected.contains("UNKNOWN_CONTROLLING") { reasons.append(.controllingAppDetected) }
        if payload.appsDetected.contains("UNKNOWN_CAPTURING") { reasons.append(.capturingAppDetected) }
        if payload.deviceActivityLevel == "LEVEL_4" { reasons.append(.highDeviceActivity) }

        return PlayIntegrityJudgement(verdict: Verdict(reasons: reasons), payload: json,
                                      observed: PlayIntegrityObservation(payload: payload))
    }

    /// The payload inside Google's `decodeIntegrityToken` answer (`{"tokenPayloadExternal": {…}}`), or nil when the
    /// answer holds no such object.
    public static func tokenPayload(fromDecodeResponse response: JSON) -> JSON? {
        guard let payload = response["tokenPayloadExternal"], payload.members != nil else { return nil }
        return payload
    }

    /// Whether `timestamp` lies within ``maxAgeMillis`` of `now` (a missing time is not fresh).
    private func isFresh(_ timestamp: Int64?, now: Int64) -> Bool {
        guard let timestamp else { return false }
        let (difference, overflow) = now.subtractingReportingOverflow(timestamp)
        return !overflow && difference.magnitude <= maxAgeMillis.magnitude
    }

    /// The device reason: none with device or strong integrity; else virtual, basic, or none met.
    private static func deviceReason(_ verdicts: [String]) -> Reason? {
        if verdicts.contains("MEETS_DEVICE_INTEGRITY") || verdicts.contains("MEETS_STRONG_INTEGRITY") { return nil }
        if verdicts.contains("MEETS_VIRTUAL_INTEGRITY") { return .virtualDevice }
        if verdicts.contains("MEETS_BASIC_INTEGRITY") { return .basicIntegrityOnly }
        return .deviceIntegrityNotMet
    }
}
