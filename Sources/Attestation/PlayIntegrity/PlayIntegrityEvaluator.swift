import Crypto
import JSON

/// Judges a Play Integrity verdict payload against the environment's registration and the request, with every
/// check of docs/device-api.md "Play Integrity" in its order, under the environment's policy ("Play Integrity in depth"),
/// and every reason collected. The payload may come from
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
        let policy = registration.policy

        let appVerdict = payload.appRecognitionVerdict ?? "UNEVALUATED"
        let unrecognizedAccepted = policy.allowUnrecognizedVersion || excusedOutsidePlay
        if appVerdict != "PLAY_RECOGNIZED" && !(unrecognizedAccepted && appVerdict == "UNRECOGNIZED_VERSION") {
            reasons.append(.appVerdict(appVerdict))
        }
        if let packageName, let minimum = policy.minimumVersionCode[packageName], let version = payload.versionCode, version < minimum {
            reasons.append(.versionCode(version))
        }

        reasons += Self.deviceReasons(payload.deviceRecognitionVerdict, policy: policy)
        if policy.requireLicensed && payload.appLicensingVerdict == "UNLICENSED" && !excusedOutsidePlay { reasons.append(.unlicensed) }
        if let minimum = policy.minimumSdkVersion {
            if let sdk = payload.sdkVersion {
                if sdk < minimum { reasons.append(.sdkVersion(sdk)) }
            } else {
                reasons.append(.sdkVersionMissing)
            }
        }
        if let protect = payload.playProtectVerdict, let rank = PlayIntegrityPolicy.playProtectOrder.firstIndex(of: protect), rank > policy.playProtect {
            reasons.append(.playProtect(protect))
        }
        for value in PlayIntegrityPolicy.appsDetectedValues where policy.appsDetected.contains(value) && payload.appsDetected.contains(value) {
            if let reason = Reason.appDetected(value) { reasons.append(reason) }
        }
        if let level = payload.deviceActivityLevel.flatMap(PlayIntegrityPolicy.activityLevel), level > policy.maximumActivityLevel {
            reasons.append(.highDeviceActivity)
        }
        if payload.isTestingResponse == true && policy.rejectsTestingResponses(inProduction: registration.isProduction) {
            reasons.append(.testingResponse)
        }
        if policy.refuseUnusualAccountActivity && payload.accountActivity == "UNUSUAL" { reasons.append(.unusualAccountActivity) }

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

    /// The device reasons under `policy`: the weakest verdict it accepts met, or why not (`virtualDevice`,
    /// `basicIntegrityOnly`, `deviceIntegrityNotMet`), and `strongIntegrityNotMet` when it asks for strong integrity.
    static func deviceReasons(_ verdicts: [String], policy: PlayIntegrityPolicy) -> [Reason] {
        let strong = verdicts.contains("MEETS_STRONG_INTEGRITY")
        let device = strong || verdicts.contains("MEETS_DEVICE_INTEGRITY")
        let basic = device || verdicts.contains("MEETS_BASIC_INTEGRITY")
        let virtual = verdicts.contains("MEETS_VIRTUAL_INTEGRITY") && policy.allowVirtual
        var reasons: [Reason] = []
        switch policy.deviceIntegrity {
        case .basic:
            if !basic && !virtual { reasons.append(verdicts.contains("MEETS_VIRTUAL_INTEGRITY") ? .virtualDevice : .deviceIntegrityNotMet) }
        case .device, .strong:
            if !device && !virtual {
                if verdicts.contains("MEETS_VIRTUAL_INTEGRITY") {
                    reasons.append(.virtualDevice)
                } else {
                    reasons.append(basic ? .basicIntegrityOnly : .deviceIntegrityNotMet)
                }
            }
            if policy.deviceIntegrity == .strong && !strong { reasons.append(.strongIntegrityNotMet) }
        }
        return reasons
    }
}
