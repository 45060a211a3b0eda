extension PlayIntegrityKeyCheckResult {
    /// Whether the check shows the keys are not the app's: tokens failed recently and none of them both decrypts and
    /// verifies with these keys. The dashboard then shows ``summary(registeredPackages:)`` as a warning.
    public var showsWrongKeys: Bool { tried > 0 && verified == 0 }

    /// What the check found, in a sentence an admin reads after saving keys: how many of the recent failures the
    /// keys decrypt, or that they decrypt none and so are not the keys of `packages` (the environment's apps).
    public func summary(registeredPackages: [String]) -> String {
        let window = "in the last 24 hours"
        guard tried > 0 else {
            return "No token has failed to decode \(window), so there was nothing to try these keys on yet."
        }
        let tokens = tried == 1 ? "the 1 token that failed \(window)" : "the \(tried) tokens that failed \(window)"
        guard decrypted > 0 else {
            let apps = registeredPackages.isEmpty ? "your app" : Self.list(registeredPackages)
            return "They decrypt none of \(tokens): they are not the keys of \(apps)."
        }
        var sentence = decrypted == tried
            ? "These keys decrypt \(tried == 1 ? "the token" : "all \(tried) tokens") that failed \(window)"
            : "These keys decrypt \(decrypted) of \(tokens)"
        if verified < decrypted {
            sentence += verified == 0
                ? ", but no signature verifies: the verification key is not the one that goes with them"
                : "; \(verified) of those verify"
        }
        if !packages.isEmpty { sentence += " (\(Self.list(packages)))" }
        return sentence + "."
    }

    private static func list(_ names: [String]) -> String {
        switch names.count {
        case 0: ""
        case 1: names[0]
        default: names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        }
    }
}
