/// What an environment asks of Play Integrity verdicts (docs/device-api.md "The policy"). The defaults are the rules
/// Gatehouse always had, but for testing responses, refused in production: an environment that sets nothing is judged
/// as before.
public struct PlayIntegrityPolicy: Sendable, Equatable {
    /// The weakest device verdict accepted.
    public enum DeviceIntegrity: String, Sendable, CaseIterable {
        /// `MEETS_BASIC_INTEGRITY` is enough.
        case basic
        /// `MEETS_DEVICE_INTEGRITY` (or strong) is needed: the default.
        case device
        /// `MEETS_STRONG_INTEGRITY` is needed.
        case strong
    }

    /// The weakest device verdict accepted (default `device`).
    public var deviceIntegrity: DeviceIntegrity = .device
    /// Whether `MEETS_VIRTUAL_INTEGRITY` (an emulator Google vouches for) is accepted.
    public var allowVirtual = false
    /// Whether `UNLICENSED` is refused (`outsidePlay` apps signed with a registered certificate are exempt).
    public var requireLicensed = true
    /// Whether `UNRECOGNIZED_VERSION` is accepted (`outsidePlay` implies it for registered certificates).
    public var allowUnrecognizedVersion = false
    /// The lowest `appIntegrity.versionCode` accepted, per package.
    public var minimumVersionCode: [String: Int64] = [:]
    /// The lowest `deviceAttributes.sdkVersion` accepted; a verdict without one is then refused.
    public var minimumSdkVersion: Int?
    /// The highest `recentDeviceActivity` level accepted, 1 to 4 (default 3: `LEVEL_4` refused).
    public var maximumActivityLevel = 3
    /// The worst Play Protect verdict accepted, an index into ``playProtectOrder`` (default `POSSIBLE_RISK`).
    public var playProtect = 2
    /// The `appsDetected` values refused.
    public var appsDetected: Set<String> = ["UNKNOWN_CONTROLLING", "UNKNOWN_CAPTURING"]
    /// Whether `testingDetails.isTestingResponse` is refused; nil: in production only.
    public var rejectTestingResponses: Bool?
    /// Whether `accountActivity` `UNUSUAL` is refused.
    public var refuseUnusualAccountActivity = false

    /// Today's rules.
    public init() {}

    /// Play Protect's verdicts from best to worst.
    public static let playProtectOrder = ["NO_ISSUES", "NO_DATA", "POSSIBLE_RISK", "MEDIUM_RISK", "HIGH_RISK"]
    /// The eight `appsDetected` values, in the order their reasons are given.
    public static let appsDetectedValues = ["UNKNOWN_CONTROLLING", "UNKNOWN_CAPTURING", "UNKNOWN_OVERLAYS", "UNKNOWN_INSTALLED",
                                            "KNOWN_CONTROLLING", "KNOWN_CAPTURING", "KNOWN_OVERLAYS", "KNOWN_INSTALLED"]

    /// The level of `LEVEL_1` … `LEVEL_4`, nil for any other value (`UNEVALUATED`, unknown ones).
    public static func activityLevel(_ value: String) -> Int? {
        guard value.hasPrefix("LEVEL_"), let level = Int(value.dropFirst(6)), (1...4).contains(level), value.count == 7 else { return nil }
        return level
    }

    /// Whether testing responses are refused in an environment that is production or not.
    public func rejectsTestingResponses(inProduction: Bool) -> Bool {
        rejectTestingResponses ?? inProduction
    }
}
