import Attestation
import Crypto
import GatehouseReceipts
import Storage

/// The judgement of one signed request (docs/device-api.md "Assessment"; seed 003 "Request signing", "Attack mode"):
/// the HMAC under the public key (constant time), the 5-minute window, the nonce spent per app across every
/// environment (committed through group commit before the answer), the reported signing certificate, the
/// attestation judged against the canonical string, attack mode, and the receipt.
public final class AssessService: Sendable {
    let store: Store
    let appAttest: AppAttestService
    let playIntegrity: PlayIntegrityService
    let keyAttestation: KeyAttestationService
    let debugTokens: DebugTokens
    let recorder: VerdictRecorder
    let receipts: ReceiptIssuer
    /// The last hour's requests with and without proof, for the Overview.
    public let tally: AssessTally

    /// How far a request's timestamp may be from now, in milliseconds (5 minutes).
    public static let window: Int64 = 300_000

    /// A service judging App Attest through `appAttest`, Play Integrity through `playIntegrity` and Android keys through
    /// `keyAttestation`,
    /// recording into `recorder` and signing receipts with `receipts`.
    init(_: Wiring, store: Store, appAttest: AppAttestService, playIntegrity: PlayIntegrityService, keyAttestation: KeyAttestationService,
         debugTokens: DebugTokens, recorder: VerdictRecorder, receipts: ReceiptIssuer, tally: AssessTally) {
        self.keyAttestation = keyAttestation
        self.store = store
        self.debugTokens = debugTokens
        self.appAttest = appAttest
        self.playIntegrity = playIntegrity
        self.recorder = recorder
        self.receipts = receipts
        self.tally = tally
    }

    /// Judges `request`, sent with the public key `apiKey` of `environment` from client `address` (whose budget of
    /// calls to Google a Play Integrity token spends; nil: none counted), and issues its receipt.
    /// - Throws: `StorageError` when state cannot be read or committed (nothing is answered then); what the receipt
    ///   key store throws.
    public func assess(_ request: AssessRequest, apiKey: String, in environment: Environment, address: String? = nil) throws -> Assessment {
        let now = store.clock()
        let canonical = request.canonical
        var tampering: [String] = []
        let signatureValid = CanonicalRequest.verifies(request.signature, canonical: canonical, apiKey: apiKey)
        if !signatureValid { tampering.append(Tampering.signatureInvalid) }
        let nowMillis = now.multipliedReportingOverflow(by: 1000).partialValue
        let skew = nowMillis.subtractingReportingOverflow(request.timestamp)
        let fresh = !skew.overflow && skew.partialValue.magnitude <= UInt64(Self.window)
        // The nonce is spent only for a signed request inside the window, first in the commit of whatever the proof
        // commits (the assertion's counter and the key's devices, or the Play Integrity token): a replay changes nothing.
        var nonce = NonceSpend(signatureValid && fresh ? Self.spending(request) : nil)
        var replayed = false
        var verdict: Verdict?
        var riskMetric: Int?
        do {
            switch request.proof {
            case nil:
                try nonce.commitAlone(store)
            case .appAttest(let keyID, let assertion)? where fresh:
                (verdict, riskMetric) = try judgeAppAttest(keyID: keyID, assertion: assertion, nonce: &nonce, request: request,
                                                           canonical: canonical, environment: environment, now: now)
            case .playIntegrity(let token)? where fresh:
                verdict = try judgePlayIntegrity(token: token, nonce: &nonce, request: request, canonical: canonical, environment: environment,
                                                 address: address)
            case .debug(let token)? where fresh:
                verdict = try judgeDebug(token: token, nonce: &nonce, request: request, environment: environment, now: now)
            case .keyAttestation(let keyID, let signature)? where fresh:
                verdict = try judgeKeyAttestation(keyID: keyID, signature: signature, nonce: &nonce, request: request, canonical: canonical,
                                                  environment: environment, now: now)
            case .appAttest?, .playIntegrity?, .debug?, .keyAttestation?:
                break
            }
        } catch is NonceSpend.Refused {
            replayed = true
        }
        var attestation: Assessment.AttestationResult?
        if let proof = request.proof {
            let judged = verdict ?? .of(fresh ? .requestReplayed : .requestStale)
            if verdict == nil { record(judged, proof: proof, request: request, environment: environment, observed: [:], at: now) }
            attestation = Assessment.AttestationResult(provider: proof.provider, verdict: judged, riskMetric: riskMetric)
        }
        if replayed { tampering.append(Tampering.replayed) }
        if request.platform == .android, Self.digestMismatch(request, environment) {
            tampering.append(Tampering.signatureDigestMismatch)
        }

        let proven = attestation?.verdict.isVerified ?? false
        let judged = Self.attackModeJudges(request, environment)
        if judged { tally.count(environmentID: environment.id, platform: request.platform, proven: proven, at: now) }
        let attackMode: Assessment.AttackMode = environment.attackMode && judged ? (proven ? .proven : .unproven) : .off
        let action: ReceiptAction = attackMode == .unproven ? .challenge : .allow
        let requestID = try RandomToken.identifier(prefix: "req_")
        let token = try receipts.issue(environmentID: environment.id, requestID: requestID, platform: request.platform.rawValue, action: action,
                                       attestation: attestation.map { ReceiptAttestation(provider: $0.provider, status: $0.verdict.status.rawValue, risk: $0.riskMetric) },
                                       confirmationKey: request.receiptKey)
        return Assessment(requestID: requestID, attestation: attestation, tampering: tampering, attackMode: attackMode, action: action,
                          sessionToken: token, receiptBound: request.receiptKey != nil)
    }

    /// The change that spends `request`'s nonce for its app until the end of its window: true when it was not spent
    /// before.
    static func spending(_ request: AssessRequest) -> @Sendable (any SQLConnection) throws -> Bool {
        let appID = request.appID, nonce = request.nonce, expiresAt = request.timestamp / 1000 + window / 1000 + 1
        return { db in try SpentNoncesTable.spend(db, appID: appID, nonce: nonce, expiresAt: expiresAt) }
    }

    /// App Attest: the assertion over the canonical string (clientData), then the key's app against `signed.app.id`
    /// and the devices the key spoke for today. The counter and the key's devices are committed together, after
    /// `nonce`. Recorded into traffic.
    /// - Throws: `NonceSpend.Refused` when the nonce was spent before (nothing committed or recorded); `StorageError`.
    private func judgeAppAttest(keyID: [UInt8]?, assertion: [UInt8], nonce: inout NonceSpend, request: AssessRequest,
                                canonical: String, environment: Environment, now: Int64) throws -> (Verdict, riskMetric: Int?) {
        let judged = try appAttest.judgeUncommitted(in: environment, keyID: keyID, clientData: Array(canonical.utf8), assertion: assertion, now: now)
        var verdict = judged.outcome.verdict
        var devices = 0
        if let pending = judged.pending {
            let committed = try appAttest.commit(pending, deviceID: request.deviceID, now: now, after: &nonce)
            verdict = appAttest.committed(judged, committed.counter).verdict
            devices = committed.devices
        } else {
            try nonce.commitAlone(store)
        }
        if verdict.isVerified, let key = judged.key {
            if AppleAppID.bundleID(key.appID) != request.appID { verdict = verdict.adding(.packageMismatch) }
            if devices > AppAttestService.maxDevicesPerKeyAndDay { verdict = verdict.adding(.oneKeyManyDevices) }
        }
        var observed = judged.outcome.observed.traffic
        if let launch = judged.outcome.observed.launch(appID: judged.key?.appID) { observed[AppAttestObservation.launchField] = launch }
        if let key = judged.key {
            observed["appId"] = key.appID
            observed["attestationEnvironment"] = key.attestationEnvironment.rawValue
        }
        record(verdict, proof: .appAttest(keyID: keyID, assertion: []), request: request, environment: environment, observed: observed, at: now)
        return (verdict, judged.key?.riskMetric)
    }

    /// A debug token: verified when it is a live token of `environment`, forged `debugTokenInvalid` otherwise. The
    /// nonce is committed with the token's last-used time when this use is the one to write it (at most once a
    /// minute). Recorded into traffic under provider `debug`.
    /// - Throws: `NonceSpend.Refused` when the nonce was spent before (nothing committed or recorded); `StorageError`.
    private func judgeDebug(token: String, nonce: inout NonceSpend, request: AssessRequest, environment: Environment, now: Int64) throws -> Verdict {
        let live = try debugTokens.live(token, environmentID: environment.id, now: now)
        try debugTokens.use(live, presented: token, now: now, after: &nonce)
        let verdict: Verdict = live == nil ? .of(.debugTokenInvalid) : .verified
        record(verdict, proof: .debug(token: ""), request: request, environment: environment, observed: [:], at: now)
        return verdict
    }

    /// Android key attestation: the signature of the canonical string by a stored key, judged by the key attestation
    /// service; the nonce committed alone (nothing else changes). Recorded into traffic.
    /// - Throws: `NonceSpend.Refused` when the nonce was spent before (nothing recorded); `StorageError`.
    private func judgeKeyAttestation(keyID: [UInt8], signature: [UInt8], nonce: inout NonceSpend, request: AssessRequest, canonical: String,
                                     environment: Environment, now: Int64) throws -> Verdict {
        let judged = try keyAttestation.judge(in: environment, keyID: keyID, signature: signature, message: Array(canonical.utf8),
                                              packageName: request.appID)
        try nonce.commitAlone(store)
        record(judged.verdict, proof: .keyAttestation(keyID: [], signature: []), request: request, environment: environment,
               observed: judged.observed, at: now)
        return judged.verdict
    }

    /// Records a judgement made here into the environment's traffic.
    func record(_ verdict: Verdict, proof: AssessRequest.Proof, request: AssessRequest, environment: Environment,
                observed: [String: String], at now: Int64) {
        var observed = observed
        if request.platform == .android { observed["packageName"] = observed["packageName"] ?? request.appID }
        recorder.record(TrafficVerdict(at: now, platform: request.platform.rawValue, provider: proof.provider, status: verdict.status.rawValue,
                                reasons: verdict.reasons, observed: observed),
                        environmentID: environment.id)
    }

    /// Whether an Android request's reported signing certificate is not one registered for its package. Nothing is
    /// compared while the environment registers no Android app.
    static func digestMismatch(_ request: AssessRequest, _ environment: Environment) -> Bool {
        guard !environment.androidApps.isEmpty else { return false }
        guard let digest = request.signatureDigest,
              let app = environment.androidApps.first(where: { $0.packageName == request.appID })
        else { return true }
        return !app.certificateDigests.contains(digest)
    }

    /// Whether attack mode asks `request` for a verified attestation (docs/device-api.md "Attack mode"). Always where its
    /// platform could have proven itself. The platform is the client's word, so a platform with nothing set up is
    /// left alone only for an app the environment registers on it (a genuine install names its own platform), or
    /// when the environment can verify neither platform: claiming the unchecked platform dodges nothing.
    public static func attackModeJudges(_ request: AssessRequest, _ environment: Environment) -> Bool {
        if couldProve(request.platform, environment) { return true }
        let other: AssessRequest.Platform = request.platform == .ios ? .android : .ios
        return couldProve(other, environment) && !registers(request.appID, on: request.platform, environment)
    }

    /// Whether `environment` registers `appID` on `platform`: an Android package name, or the bundle id of an app id.
    public static func registers(_ appID: String, on platform: AssessRequest.Platform, _ environment: Environment) -> Bool {
        switch platform {
        case .android: environment.androidApps.contains { $0.packageName == appID }
        case .ios: environment.appleAppIDs.contains { AppleAppID.bundleID($0) == appID }
        }
    }

    /// Whether `platform` could have proven itself in `environment`: iOS with an app id registered; Android with an
    /// app registered and Play Integrity decodable (local keys or a service account) or key attestation enabled.
    public static func couldProve(_ platform: AssessRequest.Platform, _ environment: Environment) -> Bool {
        switch platform {
        case .ios: !environment.appleAppIDs.isEmpty
        case .android:
            !environment.androidApps.isEmpty
                && (environment.playIntegrity.localSet || environment.playIntegrity.serviceAccountSet || environment.keyAttestation.enabled)
        }
    }

    /// Deletes expired nonces; returns how many rows.
    /// - Throws: `StorageError`.
    @discardableResult
    public func purge(limit: Int = 10_000) throws -> Int {
        let now = store.clock()
        return try store.purge(limit: limit) { db in try SpentNoncesTable.purge(db, now: now, limit: limit) }
    }

    /// How many nonces are kept now.
    /// - Throws: `StorageError`.
    public func spentNonceCount() throws -> Int {
        try store.read { db in try SpentNoncesTable.count(db) }
    }
}
