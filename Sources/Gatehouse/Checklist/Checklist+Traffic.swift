import Attestation

extension Checklist {
    /// The traffic items, one per ``SetupItem``, in its declaration order.
    static func trafficItems(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> [ChecklistItem] {
        SetupItem.allCases.map { item in
            switch item {
            case .keysNotTheApps: keysNotTheApps(configuration, week: week, thresholds: thresholds)
            case .certificateNotRegistered, .keyAttestationCertificateNotRegistered:
                certificateNotRegistered(item, configuration, week: week, thresholds: thresholds)
            case .packageNotRegistered: packageNotRegistered(configuration, week: week, thresholds: thresholds)
            case .notFromPlay: notFromPlay(configuration, week: week, thresholds: thresholds)
            case .serviceAccountRejected: serviceAccountRejected(configuration, week: week, thresholds: thresholds)
            case .notConfiguredTraffic: notConfiguredTraffic(configuration, week: week, thresholds: thresholds)
            case .appIdNotRegistered: appIdNotRegistered(configuration, week: week, thresholds: thresholds)
            case .developmentKey: developmentKey(configuration, week: week, thresholds: thresholds)
            case .bootKeyUnknown: bootKeys(configuration, week: week, thresholds: thresholds)
            }
        }
    }

    /// Figures for an item counted the plain way (every reason row as it stands).
    static func figures(_ item: SetupItem, week: TrafficWeek, thresholds: ChecklistThresholds) -> TrafficFigures {
        TrafficFigures(item: item, week: week, failing: week.failing(item), thresholds: thresholds)
    }

    /// `playIntegrity.keysNotTheApps`.
    static func keysNotTheApps(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(.keysNotTheApps, week: week, thresholds: thresholds)
        guard figures.status != .ok else {
            return figures.item(title: "Play Integrity verdicts decrypt and verify with your keys",
                                detail: figures.opener(), fix: "")
        }
        let packages = week.observed(.keysNotTheApps)
        let names = packages.isEmpty ? "your app" : Wording.list(packages.prefix(3).map(\.value), conjunction: "and")
        return figures.item(
            title: "The Play Integrity response keys are not this app's",
            detail: figures.opener()
                + " A token that does not decrypt or verify under the response keys set here reads as forged — "
                + "every genuine phone's with it — so the keys are another app's, or an old pair."
                + (packages.isEmpty ? "" : " Phones reported \(Wording.observed(Array(packages.prefix(3)))).")
                + (configuration.localKeysSet ? "" : " No response keys are set now: if they were removed this "
                    + "week, these verdicts are from before."),
            fix: "Download the response keys of \(names) again from Play Console (App integrity → Response "
                + "encryption → Manage and download keys) and paste the decryption and verification keys into this "
                + "environment's Play Integrity settings.",
            observed: packages)
    }

    /// `android.certificateNotRegistered` (Play Integrity's verdicts) and `keyAttestation.certificateNotRegistered` (the
    /// app's signing certificates in key attestation chains): the same fault, told apart by provider.
    static func certificateNotRegistered(
        _ item: SetupItem, _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(item, week: week, thresholds: thresholds)
        let digests = week.observed(item)
        let topPackage = week.observed(item, field: "packageName").first?.value
        let apps = configuration.androidApps
        let app = apps.first { $0.packageName == topPackage } ?? (apps.count == 1 ? apps.first : nil)
        let registered = app?.certificateDigests ?? unique(apps.flatMap(\.certificateDigests))
        if figures.status != .ok, let fixed = certificatesFixed(
            item, configuration, week: week, digests: digests, failing: figures.failing) {
            let title = digests.count == 1
                ? "Fixed: the certificate phones report is now registered"
                : "Fixed: the certificates phones report are now registered"
            return figures.item(status: .ok, title: title,
                                detail: fixed, fix: "", observed: digests, registered: registered)
        }
        guard figures.status != .ok else {
            return figures.item(title: "Phones carry registered signing certificates", detail: figures.opener(),
                                fix: "", observed: digests, registered: registered)
        }
        let appName = app?.packageName ?? topPackage ?? "your app"
        let forApp = app.map { " for \($0.packageName)" } ?? ""
        let registeredText = "registered\(forApp): \(Wording.registered(registered))"
        var detail = figures.opener()
        let fix: String
        if let top = digests.first {
            let owner = apps.first { $0.certificateDigests.contains(top.value) }
            detail += " Phones report the signing certificate \(top.value) (\(Wording.count(top.count, "verdict")))"
            if let owner, owner.packageName != app?.packageName {
                detail += ", which is registered for \(owner.packageName) but not for \(appName); \(registeredText)."
                fix = "Add \(top.value) to the certificate digests of \(appName) as well."
            } else {
                detail += ", which is not registered; \(registeredText). Google Play re-signs apps with its own "
                    + "app-signing key, so the one phones report is most likely the Play app-signing key and the "
                    + "registered one the upload key: Play Console → App integrity → App signing shows the "
                    + "app-signing key's SHA-256 fingerprint. If it is not the one phones report, these builds are "
                    + "copies of your app re-signed by someone else, not a setup fault."
                fix = "Add \(top.value) to the certificate digests of \(appName), once Play Console → App "
                    + "integrity → App signing shows it as the app-signing key."
            }
            if digests.count > 1 {
                detail += " Also seen: \(Wording.observed(Array(digests.dropFirst().prefix(4))))."
            }
        } else {
            detail += " Phones did not say which certificate they carry; \(registeredText)."
            fix = "Add the app-signing key's SHA-256 fingerprint (Play Console → App integrity → App signing) to the "
                + "certificate digests of \(appName)."
        }
        return figures.item(title: "Phones carry a signing certificate you have not registered", detail: detail,
                            fix: fix, observed: digests, registered: registered)
    }

    /// `android.packageNotRegistered`.
    static func packageNotRegistered(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(.packageNotRegistered, week: week, thresholds: thresholds)
        let packages = week.observed(.packageNotRegistered)
        let registered = configuration.androidApps.map(\.packageName)
        if figures.status != .ok, !packages.isEmpty, packages.allSatisfy({ registered.contains($0.value) }) {
            return figures.item(
                status: .ok, title: "Fixed: the packages phones run are now registered",
                detail: "Fixed: phones run \(Wording.list(packages.map(\.value), conjunction: "and")), "
                    + "\(packages.count == 1 ? "which is" : "which are") now registered; "
                    + Checklist.earlier(figures.failing),
                fix: "", observed: packages, registered: registered)
        }
        guard figures.status != .ok else {
            return figures.item(title: "Phones run registered packages", detail: figures.opener(), fix: "",
                                observed: packages, registered: registered)
        }
        var detail = figures.opener()
        var fix = "Register the package phones run under Android apps, with its signing certificate digests."
        if let top = packages.first {
            detail += " Phones run \(top.value) (\(Wording.count(top.count, "verdict"))), which this environment "
                + "has not registered; registered: \(Wording.registered(registered))."
            if let base = registered.first(where: { top.value.hasPrefix($0 + ".") }) {
                detail += " \(top.value) looks like a build variant of \(base) (an applicationIdSuffix): Play "
                    + "Integrity sees it as a package of its own."
            }
            if packages.count > 1 {
                detail += " Also seen: \(Wording.observed(Array(packages.dropFirst().prefix(4))))."
            }
            fix = "Register \(top.value) under Android apps, with its signing certificate digests."
        } else {
            detail += " Phones did not say which package they run; registered: \(Wording.registered(registered))."
        }
        return figures.item(title: "Phones run a package you have not registered", detail: detail, fix: fix,
                            observed: packages, registered: registered)
    }

    /// Keeps the first occurrence of each value.
    static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    /// `keyAttestation.bootKeys`: phones boot self-signed with a key the policy does not accept. The keys are named
    /// from the table of published ones (``PublishedBootKeys``); accepting one is the fix only for a key its system
    /// publishes (or one of the team's own builds): anyone can sign a system of their own.
    static func bootKeys(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(.bootKeyUnknown, week: week, thresholds: thresholds)
        let keys = week.observed(.bootKeyUnknown)
        let accepted = configuration.keyAttestationBootKeys
        func named(_ key: String) -> String { PublishedBootKeys.named(key).map { "\(key) (\($0.name))" } ?? key }
        if figures.status != .ok, !keys.isEmpty, keys.allSatisfy({ accepted.contains($0.value) }) {
            return figures.item(
                status: .ok, title: "Fixed: the boot keys phones presented are now accepted",
                detail: "Fixed: \(Wording.list(keys.map { named($0.value) }, conjunction: "and")) \(keys.count == 1 ? "is" : "are") now among "
                    + "the policy's boot keys; " + Checklist.earlier(figures.failing),
                fix: "", observed: keys, registered: accepted)
        }
        guard figures.status != .ok else {
            return figures.item(title: "Phones boot operating systems the policy accepts", detail: figures.opener(), fix: "",
                                observed: keys, registered: accepted)
        }
        var detail = figures.opener()
        var fix = "Add the boot key of the operating system your users run to the Key Attestation policy's boot keys (Apps tab)."
        if let top = keys.first {
            detail += " Phones booted self-signed with \(named(top.value)) (\(Wording.count(top.count, "verdict"))), a key the "
                + "policy does not accept."
            if keys.count > 1 { detail += " Also seen: \(Wording.list(keys.dropFirst().prefix(4).map { named($0.value) }, conjunction: "and"))." }
            if let published = PublishedBootKeys.named(top.value) {
                fix = "If you accept \(published.operatingSystem), add its key for the \(published.device) (\(top.value)) to the Key "
                    + "Attestation policy's boot keys; \(published.operatingSystem) publishes one key per device model."
            } else {
                fix = "\(top.value) is no published key: someone's own build of an operating system. Accept it only if you know "
                    + "whose it is (your own test devices, say)."
            }
        }
        return figures.item(title: "Phones boot an operating system whose key the policy does not accept", detail: detail, fix: fix,
                            observed: keys, registered: accepted)
    }
}
