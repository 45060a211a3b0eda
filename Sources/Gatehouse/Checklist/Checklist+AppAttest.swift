extension Checklist {
    /// `apple.appIdNotRegistered`.
    static func appIdNotRegistered(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(.appIdNotRegistered, week: week, thresholds: thresholds)
        let ids = week.observed(.appIdNotRegistered)
        let registered = configuration.appleAppIds
        if figures.status != .ok, !ids.isEmpty, ids.allSatisfy({ registered.contains($0.value) }) {
            return figures.item(
                status: .ok, title: "Fixed: the app ids phones attest are now registered",
                detail: "Fixed: phones attest \(Wording.list(ids.map(\.value), conjunction: "and")), "
                    + "\(ids.count == 1 ? "which is" : "which are") now registered; " + earlier(figures.failing),
                fix: "", observed: ids, registered: registered)
        }
        guard figures.status != .ok else {
            return figures.item(title: "Phones attest registered app ids", detail: figures.opener(), fix: "",
                                observed: ids, registered: registered)
        }
        var detail = figures.opener()
        var fix = "Register the app id your builds are signed with (\"APPIDPREFIX.bundleId\") under Apple app ids."
        if let top = ids.first {
            let (prefix, bundle) = split(appId: top.value)
            detail += " Phones attest \(top.value) (\(Wording.count(top.count, "verdict"))); registered: "
                + "\(Wording.registered(registered))."
            if let same = registered.first(where: { split(appId: $0).bundle == bundle && $0 != top.value }) {
                detail += " The bundle id \(bundle) is the same, but the prefix differs: Apple signed \(prefix), "
                    + "\(same) says \(split(appId: same).prefix). Older apps can have an App ID prefix that is not "
                    + "the team id, and the rpId hash is made with the prefix Apple signed."
                fix = "Register \(top.value) under Apple app ids."
            } else {
                detail += " No registered app id has the bundle id \(bundle)."
                // Anyone's developer account can attest its own app against the public key: no fix names it.
                fix = "If \(bundle) is an app of yours, register its app id on the Apps tab; if it is not, another "
                    + "developer's app is sending attestations with your public key, and registering it would let it in."
            }
            if ids.count > 1 { detail += " Also seen: \(Wording.observed(Array(ids.dropFirst().prefix(4))))." }
        } else {
            detail += " Phones did not say which app id they attest; registered: \(Wording.registered(registered))."
        }
        return figures.item(title: "Phones attest an app id you have not registered", detail: detail, fix: fix,
                            observed: ids, registered: registered)
    }

    /// `apple.developmentKey`: in a development environment development keys are expected, and the item is
    /// always ok (with the count).
    static func developmentKey(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(.developmentKey, week: week, thresholds: thresholds)
        let ids = week.observed(.developmentKey)
        let registered = configuration.appleAppIds
        if configuration.isDevelopment {
            return figures.item(
                status: .ok, title: "Development App Attest keys are expected here",
                detail: "This is a development environment, which takes keys from Apple's development "
                    + "environment: \(Wording.count(figures.failing, "App Attest verdict")) this week came from one.",
                fix: "", observed: ids, registered: registered)
        }
        guard figures.status != .ok else {
            return figures.item(title: "Builds attest against Apple's production environment",
                                detail: figures.opener(), fix: "", observed: ids, registered: registered)
        }
        return figures.item(
            title: "Builds attest against Apple's development environment in production",
            detail: figures.opener()
                + " Those keys were attested by Apple's development environment — builds run from Xcode, or "
                + "signed with the development App Attest environment — and a production environment takes "
                + "production keys only."
                + (ids.isEmpty ? "" : " Apps reported: \(Wording.observed(Array(ids.prefix(3)))).")
                + (ids.contains { !registered.contains($0.value) } ? " Registered: \(Wording.registered(registered))." : ""),
            fix: "Ship release builds through TestFlight or the App Store, and set the "
                + "com.apple.developer.devicecheck.appattest-environment entitlement of release builds to "
                + "production; point development builds at a development environment.",
            observed: ids, registered: registered)
    }

    /// `"A1B2C3D4E5.com.example.app"` → (`"A1B2C3D4E5"`, `"com.example.app"`); without a dot, no prefix.
    static func split(appId: String) -> (prefix: String, bundle: String) {
        guard let dot = appId.firstIndex(of: ".") else { return ("", appId) }
        return (String(appId[..<dot]), String(appId[appId.index(after: dot)...]))
    }
}
