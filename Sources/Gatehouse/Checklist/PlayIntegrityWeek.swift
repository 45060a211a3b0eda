/// What the week's Play Integrity verdicts showed beyond their reasons (the Traffic tab): version codes, SDK levels,
/// testers' responses, and the device labels, new beside legacy (Android 13+ during Google's move to hardware-backed
/// verdicts). Counted from the verdicts of tokens that decoded.
public struct PlayIntegrityWeek: Sendable, Equatable {
    /// Verdicts per value, most first.
    public var versionCodes: [ObservedValue]
    public var sdkLevels: [ObservedValue]
    public var deviceLabels: [ObservedValue]
    /// Verdicts that were a tester's overridden response.
    public var testingResponses: Int

    /// The week of `rollups`.
    public init(rollups: [VerdictRollup]) {
        let week = TrafficWeek(rollups: rollups, from: Int64.min, to: Int64.max)
        versionCodes = week.statusObserved(provider: Provider.playIntegrity, field: "versionCode")
        sdkLevels = week.statusObserved(provider: Provider.playIntegrity, field: "sdkVersion")
        deviceLabels = week.statusObserved(provider: Provider.playIntegrity, field: "deviceLabels")
        testingResponses = week.statusObserved(provider: Provider.playIntegrity, field: "testingResponse").reduce(0) { $0 + $1.count }
    }

    /// Whether the week showed anything.
    public var isEmpty: Bool { versionCodes.isEmpty && sdkLevels.isEmpty && deviceLabels.isEmpty && testingResponses == 0 }
}
