extension Checklist {
    /// `keyAttestation.revocationList`: warns while key attestation is on and Google's status list was never fetched
    /// or is more than a day old (revoked certificates are then not refused; nothing else is).
    static func statusList(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let id = "keyAttestation.revocationList"
        let evidence = ChecklistEvidence(provider: KeyAttestationService.provider)
        guard configuration.keyAttestationEnabled else {
            return ChecklistItem(id: id, status: .ok, title: "Key attestation is off",
                                 detail: "No Android key attestation is accepted, so Google's status list is not needed.", fix: "",
                                 evidence: evidence)
        }
        if let age = configuration.statusListAge, age <= KeyAttestationService.statusStaleAfter {
            return ChecklistItem(id: id, status: .ok, title: "Google's key attestation status list is current",
                                 detail: "Fetched \(Wording.count(Int(age / 60), "minute")) ago; revoked certificates are refused.", fix: "",
                                 evidence: evidence)
        }
        let when = configuration.statusListAge.map { "was last fetched \(Wording.count(Int($0 / 3_600), "hour")) ago" } ?? "was never fetched"
        return ChecklistItem(
            id: id, status: .warn, title: "Google's key attestation status list \(when)",
            detail: "Key attestation is on, but the list of revoked attestation certificates \(when): a phone whose "
                + "attestation key Google revoked since is still accepted.",
            fix: "Let the servers reach https://android.googleapis.com/attestation/status (or the URL given to "
                + "--key-attestation-status-url); the list is fetched every hour by one server, and the server log says why a fetch failed.",
            evidence: evidence)
    }

    /// `keyAttestation.patchLevel`: most of the week's key attestation verdicts came from phones whose security patch is
    /// older than the policy's minimum: raise the minimum only once the update has reached the phones.
    static func patchLevels(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let id = "keyAttestation.patchLevel"
        let provider = KeyAttestationService.provider
        let total = week.verdicts(provider)
        let below = week.reasonCount(provider: provider) { $0.hasPrefix("patchLevel:") }
        let minimum = configuration.keyAttestationMinimumPatchLevel
        var evidence = ChecklistEvidence(provider: provider, verdicts: total, failing: below, share: total == 0 ? 0 : Double(below) / Double(total))
        evidence.registered = minimum.map { ["≥ \($0)"] } ?? []
        evidence.observed = Array(week.statusObserved(provider: provider, field: "osPatchLevel").prefix(5))
        guard let minimum, total > 0, below * 2 > total else {
            return ChecklistItem(id: id, status: .ok, title: "Phones run security patches you accept",
                                 detail: minimum == nil ? "No minimum patch level is set."
                                    : "\(Wording.count(below, "verdict")) of \(Wording.number(total)) came from phones patched before \(minimum ?? "").",
                                 fix: "", evidence: evidence)
        }
        let seen = evidence.observed.first.map { " The patch level seen most is \($0.value) (\(Wording.count($0.count, "verdict")))." } ?? ""
        return ChecklistItem(
            id: id, status: .warn, title: "Most phones run a security patch older than the minimum",
            detail: "\(Wording.number(below)) of \(Wording.number(total)) key attestation verdicts came from phones patched before \(minimum): "
                + "their users are refused until their phone updates, which on many models never comes.\(seen)",
            fix: "Lower keyAttestation.minimumPatchLevel (Apps tab → Key Attestation policy) to a level most of your users' phones have.",
            evidence: evidence)
    }

    /// `keyAttestation.softwareKeys`: a tenth or more of the week's key registrations (at least the thresholds' fewest
    /// failing, so that two emulators of a developer's do not alert) came with keys made in software, which is what
    /// emulators and rooted phones hiding their hardware do: a farm, or testers registering against production.
    static func softwareKeys(_ configuration: ChecklistConfiguration, week: TrafficWeek,
                             thresholds: ChecklistThresholds = .standard) -> ChecklistItem {
        let id = "keyAttestation.softwareKeys"
        let provider = KeyAttestationService.provider
        let registrations = week.statusObserved(provider: provider, field: Verdicts.stageField).reduce(0) { $0.addingCount($1.count) }
        let software = week.reasonCount(provider: provider) { $0 == "softwareKey" }
        let evidence = ChecklistEvidence(provider: provider, verdicts: registrations, failing: software,
                                         share: registrations == 0 ? 0 : Double(software) / Double(registrations),
                                         reasons: software > 0 ? ["softwareKey"] : [])
        guard registrations > 0, software * 10 >= registrations, software >= thresholds.minimumFailing else {
            return ChecklistItem(id: id, status: .ok, title: "Keys are made in secure hardware",
                                 detail: "\(Wording.count(software, "registration")) of \(Wording.number(registrations)) this week came with a key made in software.",
                                 fix: "", evidence: evidence)
        }
        return ChecklistItem(
            id: id, status: .warn, title: "Many registrations come with keys made in software",
            detail: "\(Wording.percent(software, of: registrations)) of this week's key registrations (\(Wording.number(software)) of "
                + "\(Wording.number(registrations))) were refused softwareKey: the key was not made in secure hardware, as on an emulator. "
                + "Each was refused; so many point to an emulator farm, or to testers' emulators registering against this environment.",
            fix: configuration.isDevelopment ? "Nothing to change if these are your own emulators; give them a debug token instead (Keys tab)."
                : "If these are your testers' emulators, point their builds at a development environment and give them a debug token; "
                + "otherwise nothing to change: they are refused, and attack mode keeps them out of protected calls.",
            evidence: evidence)
    }
}
