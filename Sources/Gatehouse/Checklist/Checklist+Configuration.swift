extension Checklist {
    /// The configuration items, in this order: `android.noApps`, `android.noDigests`,
    /// `playIntegrity.notConfigured`, `android.googleQuota`, `apple.noAppIds`, `keys.noSecretKey`,
    /// `attackMode.nothingToProve`, `debugTokens.production`.
    ///
    /// The rule for a platform with nothing registered (`android.noApps`, `apple.noAppIds`):
    /// - `fail` when that platform's verdicts arrive anyway (the SDK attests, nothing can verify it);
    /// - `ok` when this platform sends nothing and the other has something (an app registered, or verdicts
    ///   arriving) — a team that ships on one platform only must not see the other in red or yellow;
    /// - `warn` when neither platform has anything (a new environment: nothing can work yet).
    ///
    /// The other rules: `android.noDigests` fails for any app without a digest (every verdict of it is a
    /// certificate mismatch, and a re-signed copy is not told from it); `playIntegrity.notConfigured` warns when
    /// Android apps are registered with nothing to decode their verdicts (registering apps alone still catches
    /// re-signed copies) and fails once Play Integrity verdicts arrive; `keys.noSecretKey` fails (nothing can
    /// report verdicts or verify receipts); `attackMode.nothingToProve` fails when attack mode is on and no phone
    /// can bring proof, and is ok otherwise; `debugTokens.production` warns while a production environment has an
    /// active debug token.
    static func configurationItems(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> [ChecklistItem] {
        [
            androidApps(configuration, week: week),
            androidDigests(configuration),
            playIntegrityDecoding(configuration, week: week),
            googleQuota(configuration),
            appleAppIds(configuration, week: week),
            secretKeys(configuration),
            attackMode(configuration),
            debugTokens(configuration),
            deviceCheckKey(configuration),
            riskMetric(configuration),
            validationCategory(configuration, week: week),
            receipts(week),
            versionCodes(configuration, week: week),
            testingResponses(configuration, week: week),
            strongIntegrity(configuration, week: week),
            statusList(configuration),
            patchLevels(configuration, week: week),
            softwareKeys(configuration, week: week),
        ]
    }

    /// `android.noApps`.
    static func androidApps(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let verdicts = week.verdicts(Provider.playIntegrity)
        let packages = configuration.androidApps.map(\.packageName)
        var evidence = ChecklistEvidence(provider: Provider.playIntegrity, verdicts: verdicts, registered: packages)
        let id = "android.noApps"
        if !packages.isEmpty {
            return ChecklistItem(
                id: id, status: .ok, title: "\(Wording.count(packages.count, "Android app")) registered",
                detail: "Registered: \(Wording.list(packages, conjunction: "and")).", fix: "", evidence: evidence)
        }
        if verdicts > 0 {
            let seen = Array(week.observed(provider: Provider.playIntegrity, field: "packageName").prefix(5))
            evidence.observed = seen
            let named = seen.first.map { " Register \($0.value)" } ?? " Register your app's package"
            return ChecklistItem(
                id: id, status: .fail, title: "Android phones send Play Integrity verdicts, but no Android app is registered",
                detail: "\(Wording.count(verdicts, "Play Integrity verdict")) arrived this week, and this environment "
                    + "has no Android app registered, so none of them can verify."
                    + (seen.isEmpty ? "" : " Phones reported \(Wording.observed(seen))."),
                fix: "\(named) under Android apps, with its signing certificate digests (Play Console → App "
                    + "integrity → App signing shows them).",
                evidence: evidence)
        }
        if !configuration.appleAppIds.isEmpty || week.verdicts(Provider.appAttest) > 0 {
            return ChecklistItem(
                id: id, status: .ok, title: "No Android app registered",
                detail: "Fine if you ship on iOS only: no Play Integrity verdict arrived this week.", fix: "",
                evidence: evidence)
        }
        return ChecklistItem(
            id: id, status: .warn, title: "No app registered on either platform",
            detail: "This environment has neither an Android app nor an Apple app id registered, so no phone's "
                + "attestation can be checked.",
            fix: "If you ship on Android, register the app's package with its signing certificate digests under "
                + "Android apps (Play Console → App integrity → App signing shows them).",
            evidence: evidence)
    }

    /// `android.noDigests`.
    static func androidDigests(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let apps = configuration.androidApps
        let bare = apps.filter { $0.certificateDigests.isEmpty }.map(\.packageName)
        let evidence = ChecklistEvidence(provider: Provider.playIntegrity, registered: bare)
        let id = "android.noDigests"
        if apps.isEmpty {
            return ChecklistItem(
                id: id, status: .ok, title: "No Android app to hold certificates",
                detail: "No Android app is registered, so there is no signing certificate to register.", fix: "",
                evidence: evidence)
        }
        if bare.isEmpty {
            let digests = apps.reduce(0) { $0 + $1.certificateDigests.count }
            return ChecklistItem(
                id: id, status: .ok, title: "Every Android app has its signing certificates",
                detail: "\(Wording.count(apps.count, "Android app")) with \(Wording.count(digests, "certificate digest")) "
                    + "registered.",
                fix: "", evidence: evidence)
        }
        let names = Wording.list(bare, conjunction: "and")
        let verb = bare.count == 1 ? "has" : "have"
        return ChecklistItem(
            id: id, status: .fail, title: "\(names) \(verb) no signing certificate registered",
            detail: "Without a registered certificate digest every Play Integrity verdict of \(names) is rejected "
                + "with certificateMismatch, and a copy re-signed with someone else's key is not told from the "
                + "real app.",
            fix: "Add to \(names) the SHA-256 fingerprint of the app-signing key, as Play Console → App integrity → "
                + "App signing shows it, and of the upload key too if you install builds signed with it.",
            evidence: evidence)
    }

    /// `playIntegrity.notConfigured`.
    static func playIntegrityDecoding(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let verdicts = week.verdicts(Provider.playIntegrity)
        let evidence = ChecklistEvidence(provider: Provider.playIntegrity, verdicts: verdicts)
        let id = "playIntegrity.notConfigured"
        if configuration.androidApps.isEmpty {
            return ChecklistItem(
                id: id, status: .ok, title: "Play Integrity not needed",
                detail: "No Android app is registered, so there is no Play Integrity verdict to decode.", fix: "",
                evidence: evidence)
        }
        if configuration.playIntegrityDecodable {
            let how: String
            switch (configuration.serviceAccountSet, configuration.localKeysSet) {
            case (true, true): how = "through Google with the service account, and on this server with the response keys"
            case (true, false): how = "through Google with the service account"
            default: how = "on this server with the response keys (classic requests only)"
            }
            return ChecklistItem(
                id: id, status: .ok, title: "Play Integrity verdicts can be decoded",
                detail: "Verdicts are decoded \(how).", fix: "", evidence: evidence)
        }
        if configuration.keyAttestationEnabled && verdicts == 0 {
            return ChecklistItem(
                id: id, status: .ok, title: "Android phones prove themselves with key attestation",
                detail: "Play Integrity is not set up, and no Play Integrity verdict arrived this week: Android phones register "
                    + "keys their hardware attests instead (phones without Play). Set up Play Integrity too if your app ships on Play.",
                fix: "", evidence: evidence)
        }
        let arrived = verdicts > 0
            ? " \(Wording.count(verdicts, "Play Integrity verdict")) arrived this week and could not be decoded." : ""
        return ChecklistItem(
            id: id, status: verdicts > 0 ? .fail : .warn,
            title: "Play Integrity is not set up: neither a service account nor response keys",
            detail: "Android apps are registered, but nothing is set to decode a Play Integrity verdict: each one "
                + "reports unavailable / notConfigured and moves nothing, and attack mode cannot ask Android phones "
                + "for proof. The registered certificates still catch re-signed copies.\(arrived)",
            fix: "Set a service account (create it in the Google Cloud project linked in Play Console and paste its "
                + "JSON key), or the response keys (Play Console → App integrity → Response encryption → Manage and "
                + "download keys; classic requests only).",
            evidence: evidence)
    }

    /// `apple.noAppIds`.
    static func appleAppIds(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let verdicts = week.verdicts(Provider.appAttest)
        let ids = configuration.appleAppIds
        var evidence = ChecklistEvidence(provider: Provider.appAttest, verdicts: verdicts, registered: ids)
        let id = "apple.noAppIds"
        if !ids.isEmpty {
            return ChecklistItem(
                id: id, status: .ok, title: "\(Wording.count(ids.count, "Apple app id")) registered",
                detail: "Registered: \(Wording.list(ids, conjunction: "and")).", fix: "", evidence: evidence)
        }
        if verdicts > 0 {
            let seen = Array(week.observed(provider: Provider.appAttest, field: "appId").prefix(5))
            evidence.observed = seen
            let named = seen.first.map { "Register \($0.value)" } ?? "Register your app id (TEAMID.bundleId)"
            return ChecklistItem(
                id: id, status: .fail, title: "iPhones send App Attest verdicts, but no Apple app id is registered",
                detail: "\(Wording.count(verdicts, "App Attest verdict")) arrived this week, and this environment has "
                    + "no Apple app id registered: App Attest's rpId hash is SHA-256 of \"TEAMID.bundleId\", so no "
                    + "key can register."
                    + (seen.isEmpty ? "" : " Phones reported \(Wording.observed(seen))."),
                fix: "\(named) under Apple app ids.", evidence: evidence)
        }
        if !configuration.androidApps.isEmpty || week.verdicts(Provider.playIntegrity) > 0 {
            return ChecklistItem(
                id: id, status: .ok, title: "No Apple app id registered",
                detail: "Fine if you ship on Android only: no App Attest verdict arrived this week.", fix: "",
                evidence: evidence)
        }
        return ChecklistItem(
            id: id, status: .warn, title: "No app registered on either platform",
            detail: "This environment has neither an Apple app id nor an Android app registered, so no phone's "
                + "attestation can be checked.",
            fix: "If you ship on iOS, register your app id as \"TEAMID.bundleId\" under Apple app ids (the App ID "
                + "prefix shown for the app in the Apple Developer portal, then the bundle id).",
            evidence: evidence)
    }

    /// `keys.noSecretKey`.
    static func secretKeys(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let count = max(0, configuration.activeSecretKeys)
        let id = "keys.noSecretKey"
        if count > 0 {
            return ChecklistItem(
                id: id, status: .ok, title: "\(Wording.count(count, "active secret key"))",
                detail: "Verdicts can be reported and receipts verified with it.", fix: "",
                evidence: ChecklistEvidence())
        }
        return ChecklistItem(
            id: id, status: .fail, title: "No active secret key",
            detail: "Without an active secret key nothing can report verdicts to this environment or verify the "
                + "receipts it issues, so this checklist cannot see any traffic either.",
            fix: "Create a secret key for this environment and give it to the server that reports verdicts and "
                + "verifies receipts.",
            evidence: ChecklistEvidence())
    }

    /// `attackMode.nothingToProve`.
    static func attackMode(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let android = configuration.playIntegrityDecodable && !configuration.androidApps.isEmpty
        let apple = !configuration.appleAppIds.isEmpty
        let id = "attackMode.nothingToProve"
        var proofs: [String] = []
        if apple { proofs.append("iPhones (App Attest)") }
        if android { proofs.append("Android phones (Play Integrity)") }
        if !configuration.attackMode {
            return ChecklistItem(
                id: id, status: .ok, title: "Attack mode is off",
                detail: proofs.isEmpty
                    ? "Switched on now, it would do nothing: no attestation is set up."
                    : "Switched on, it would ask \(Wording.list(proofs, conjunction: "and")) for proof.",
                fix: "", evidence: ChecklistEvidence())
        }
        if proofs.isEmpty {
            return ChecklistItem(
                id: id, status: .fail, title: "Attack mode is on, but phones have nothing to prove",
                detail: "Attack mode asks a phone for a verified attestation only where this environment can check "
                    + "one: App Attest needs an Apple app id registered; Play Integrity needs a registered package "
                    + "and a service account or response keys. Neither is set up, so every phone is left alone and "
                    + "attack mode does nothing.",
                fix: "Register your Apple app id for App Attest, or set up Play Integrity: register the package with "
                    + "its signing certificates, and a service account or the response keys.",
                evidence: ChecklistEvidence())
        }
        // The platform is the client's word: the one nothing checks is left alone only for the apps registered on it.
        let packages = configuration.androidApps.map(\.packageName)
        let left = android ? (apple ? "" : " No Apple app id is registered, so a request that says it is iOS is challenged.")
            : packages.isEmpty ? " No Android app is registered, so a request that says it is Android is challenged."
            : " Android phones of \(Wording.list(packages, conjunction: "and")) are left alone: Play Integrity is not set up. "
                + "A request that says it is Android for any other app is challenged."
        return ChecklistItem(
            id: id, status: .ok, title: "Attack mode asks phones for proof",
            detail: "Attack mode holds \(Wording.list(proofs, conjunction: "and")) to a verified attestation.\(left)",
            fix: "", evidence: ChecklistEvidence())
    }
}
