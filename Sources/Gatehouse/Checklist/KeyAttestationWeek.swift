import Attestation

/// What the week's Android key attestations showed (the Traffic tab): the security levels of the keys, the boot states,
/// the boot keys (named when an operating system publishes them) and the security patch levels. Counted from the
/// registrations and assessments that were not forged.
public struct KeyAttestationWeek: Sendable, Equatable {
    /// Verdicts per value, most first.
    public var securityLevels: [ObservedValue]
    public var bootStates: [ObservedValue]
    public var bootKeys: [ObservedValue]
    public var patchLevels: [ObservedValue]

    /// The week of `rollups`.
    public init(rollups: [VerdictRollup]) {
        let week = TrafficWeek(rollups: rollups, from: Int64.min, to: Int64.max)
        securityLevels = week.statusObserved(provider: Provider.keyAttestation, field: "securityLevel")
        bootStates = week.statusObserved(provider: Provider.keyAttestation, field: "verifiedBootState")
        bootKeys = week.statusObserved(provider: Provider.keyAttestation, field: "bootKey")
        patchLevels = week.statusObserved(provider: Provider.keyAttestation, field: "osPatchLevel")
    }

    /// Whether the week showed anything.
    public var isEmpty: Bool { securityLevels.isEmpty && bootStates.isEmpty && bootKeys.isEmpty && patchLevels.isEmpty }
}
