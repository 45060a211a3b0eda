extension Checklist {
    /// `debugTokens.production`: a production environment with an active debug token warns, naming the tokens: any
    /// build that carries one passes as attested, so a token left in production, or shipped by mistake, is a way in
    /// for copies of the app. `ok` in a development environment, or with no active token.
    static func debugTokens(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let id = "debugTokens.production"
        let names = configuration.activeDebugTokens
        guard !names.isEmpty else {
            return ChecklistItem(id: id, status: .ok, title: "No active debug token",
                                 detail: "Every request must bring a genuine attestation; no debug token lets a build in.", fix: "",
                                 evidence: ChecklistEvidence())
        }
        let listed = Wording.list(names.map { "“\($0)”" }, conjunction: "and")
        if configuration.isDevelopment {
            return ChecklistItem(id: id, status: .ok, title: "\(Wording.count(names.count, "active debug token")) in development",
                                 detail: "\(listed) let simulators, emulators and CI builds pass as attested here, as intended in development.",
                                 fix: "", evidence: ChecklistEvidence())
        }
        return ChecklistItem(
            id: id, status: .warn, title: "Debug tokens are active in production",
            detail: "\(listed) \(names.count == 1 ? "lets" : "let") any build that carries \(names.count == 1 ? "it" : "one") pass as attested, "
                + "attack mode included. A token left in a production environment, or shipped inside an app by mistake, is a "
                + "way in for copies of your app.",
            fix: "Revoke the debug tokens this environment does not need (Keys → Debug tokens), and test simulators, emulators "
                + "and CI builds against a development environment.",
            evidence: ChecklistEvidence())
    }
}
