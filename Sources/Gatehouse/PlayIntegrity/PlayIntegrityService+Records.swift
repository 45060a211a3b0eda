import Attestation
import Crypto
import JSON

extension PlayIntegrityService {
    /// The environment's credentials, unsealed and parsed once per environment revision.
    /// - Throws: `StorageError`, or `SecretBoxError` when a sealed credential does not open.
    func credentials(_ environment: Environment) throws -> DecodingCredentials {
        guard environment.playIntegrity.localSet || environment.playIntegrity.serviceAccountSet else { return DecodingCredentials() }
        let environments = self.environments
        let limits = self.limits
        return try credentialCache.credentials(environmentID: environment.id, revision: environment.revision) {
            let stored = try environments.credentials(environment.id)
            var decoding = DecodingCredentials()
            if let local = stored.local, let verification = try? ECPublicKey(derSubjectPublicKeyInfo: local.verificationKey),
               let keys = try? PlayIntegrityKeys(decryptionKey: local.decryptionKey, verificationKey: verification) {
                decoding.local = PlayIntegrityDecoder(keys: keys, limits: limits)
            }
            if let document = stored.serviceAccount, let email = document["client_email"]?.string {
                decoding.serviceAccount = ServiceAccountKey(document: document, clientEmail: email, projectID: document["project_id"]?.string)
            }
            return decoding
        }
    }

    /// Records a judgement into the environment's traffic: platform android, provider `play-integrity`, and what the
    /// payload said (package, certificate digest in colon hex, recognition, licensing and device verdicts). A token
    /// nobody could open observes the package the request named, when it is a valid one.
    func record(_ judgement: PlayIntegrityJudgement, environmentID: String, requestedPackage: String, at now: Int64) {
        let seen = judgement.observed
        var observed: [String: String] = [:]
        if let name = seen.packageName ?? (judgement.payload == nil && PackageName.isValid(requestedPackage) ? requestedPackage : nil) {
            observed["packageName"] = name
        }
        if let digest = seen.certificateDigests.first { observed["certificateDigest"] = digest }
        if let verdict = seen.appRecognitionVerdict { observed["appRecognitionVerdict"] = verdict }
        if let verdict = seen.appLicensingVerdict { observed["appLicensingVerdict"] = verdict }
        if !seen.deviceRecognitionVerdict.isEmpty { observed["deviceRecognitionVerdict"] = seen.deviceRecognitionVerdict.joined(separator: ",") }
        // What the Traffic tab shows of the week (version codes, SDK levels, testing responses, the old device labels
        // beside the new), rolled up on the status rows.
        if judgement.payload != nil {
            if let code = seen.versionCode { observed["versionCode"] = String(code) }
            if let sdk = seen.sdkVersion { observed["sdkVersion"] = String(sdk) }
            if seen.isTestingResponse == true { observed["testingResponse"] = "true" }
            observed["deviceLabels"] = (seen.deviceRecognitionVerdict.isEmpty ? "none" : seen.deviceRecognitionVerdict.joined(separator: ", "))
                + (seen.legacyDeviceRecognitionVerdict.isEmpty ? "" : " (legacy: " + seen.legacyDeviceRecognitionVerdict.joined(separator: ", ") + ")")
        }
        let verdict = judgement.verdict
        recorder.record(TrafficVerdict(at: now, platform: "android", provider: Provider.playIntegrity, status: verdict.status.rawValue,
                                reasons: verdict.reasons, observed: observed),
                        environmentID: environmentID)
    }

    /// Deletes spent token hashes that expired, failed tokens older than 24 hours, tokens sent to Google more than 10
    /// minutes ago and decode counts of days past; returns how many rows went.
    /// - Throws: `StorageError`.
    @discardableResult
    public func purgeExpired(limit: Int = 10_000) throws -> Int {
        let now = store.clock()
        return try store.purge(limit: limit) { db in
            try SpentIntegrityTokensTable.purge(db, now: now, limit: limit) + FailedIntegrityTokensTable.purge(db, now: now, limit: limit)
                + JudgedIntegrityTokensTable.purge(db, now: now, limit: limit) + GoogleDecodeCountsTable.purge(db, now: now)
                + PlayIntegrityTokenCountsTable.purge(db, now: now) + GoogleUndecodableHoursTable.purge(db, now: now)
        }
    }
}
