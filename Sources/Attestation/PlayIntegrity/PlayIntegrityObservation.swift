import Crypto
import JSON

/// What a verdict payload said about the app and the device, as docs/device-api.md's `observed` object and the traffic
/// rollups record it. Empty when nothing could be decoded. Values are bounded: verdict values that are not upper-case
/// identifiers read `UNKNOWN`, a package name over 255 bytes is dropped, lists hold at most 32 entries.
public struct PlayIntegrityObservation: Sendable, Equatable {
    /// `appIntegrity.packageName` (or, when Google did not evaluate the app, `requestDetails.requestPackageName`).
    public var packageName: String?
    /// The signing certificates' SHA-256 digests, as upper-case colon hex (`AB:CD:…`).
    public var certificateDigests: [String]
    /// `appIntegrity.appRecognitionVerdict`, e.g. `PLAY_RECOGNIZED`.
    public var appRecognitionVerdict: String?
    /// `deviceIntegrity.deviceRecognitionVerdict`, e.g. `["MEETS_DEVICE_INTEGRITY"]`.
    public var deviceRecognitionVerdict: [String]
    /// `accountDetails.appLicensingVerdict`, e.g. `LICENSED`.
    public var appLicensingVerdict: String?
    /// `environmentDetails.playProtectVerdict`, e.g. `NO_ISSUES`.
    public var playProtectVerdict: String?
    /// `environmentDetails.appAccessRiskVerdict.appsDetected`, e.g. `["KNOWN_INSTALLED"]`.
    public var appsDetected: [String]
    /// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel`, e.g. `LEVEL_1`.
    public var deviceActivityLevel: String?
    /// `requestDetails.timestampMillis`: when Google made the verdict, Unix milliseconds.
    public var timestampMillis: Int64?
    /// `appIntegrity.versionCode`: the app's version code.
    public var versionCode: Int64?
    /// `requestDetails.requestPackageName`: the package the app asked for (which "might be spoofed").
    public var requestPackageName: String?
    /// `deviceIntegrity.legacyDeviceRecognitionVerdict`: the old labels beside the new ones (Android 13+, while Google
    /// moves to hardware-backed verdicts).
    public var legacyDeviceRecognitionVerdict: [String]
    /// `deviceIntegrity.deviceAttributes.sdkVersion`: the Android SDK level.
    public var sdkVersion: Int?
    /// `deviceIntegrity.deviceRecall`: the three bits (nil where absent) and their write months, when present.
    public var deviceRecall: (bits: [Bool?], writeDates: [String?])?
    /// `accountDetails.accountActivity.activityLevel`.
    public var accountActivity: String?
    /// `environmentDetails.locationSpoofingRiskVerdict`.
    public var locationSpoofingRisk: [String]
    /// `testingDetails.isTestingResponse`: a tester's overridden verdict.
    public var isTestingResponse: Bool?
    /// The deprecated `appAccessRiskVerdict.otherApps` and `.playOrSystemApps`, when present.
    public var otherApps: String?
    public var playOrSystemApps: String?

    /// The observation of a token that could not be decoded: nothing.
    public static let empty = PlayIntegrityObservation(payload: PlayIntegrityPayload(.object([])))

    init(payload: PlayIntegrityPayload) {
        let name = payload.packageName ?? payload.requestPackageName
        packageName = name.flatMap { $0.utf8.count <= 255 ? $0 : nil }
        certificateDigests = payload.certificateDigests.map { Hex.encode($0, uppercase: true, separator: ":") }
        appRecognitionVerdict = payload.appRecognitionVerdict.map(PlayIntegrityPayload.identifier)
        deviceRecognitionVerdict = payload.deviceRecognitionVerdict.map(PlayIntegrityPayload.identifier)
        appLicensingVerdict = payload.appLicensingVerdict.map(PlayIntegrityPayload.identifier)
        playProtectVerdict = payload.playProtectVerdict.map(PlayIntegrityPayload.identifier)
        appsDetected = payload.appsDetected.map(PlayIntegrityPayload.identifier)
        deviceActivityLevel = payload.deviceActivityLevel.map(PlayIntegrityPayload.identifier)
        timestampMillis = payload.timestampMillis
        versionCode = payload.versionCode
        requestPackageName = payload.requestPackageName.flatMap { $0.utf8.count <= 255 ? $0 : nil }
        legacyDeviceRecognitionVerdict = payload.legacyDeviceRecognitionVerdict.map(PlayIntegrityPayload.identifier)
        sdkVersion = payload.sdkVersion
        deviceRecall = payload.deviceRecallBits.map { ($0, payload.deviceRecallWriteDates) }
        accountActivity = payload.accountActivity.map(PlayIntegrityPayload.identifier)
        locationSpoofingRisk = payload.locationSpoofingRisk.map(PlayIntegrityPayload.identifier)
        isTestingResponse = payload.isTestingResponse
        otherApps = payload.otherApps.map(PlayIntegrityPayload.identifier)
        playOrSystemApps = payload.playOrSystemApps.map(PlayIntegrityPayload.identifier)
    }

    public static func == (lhs: PlayIntegrityObservation, rhs: PlayIntegrityObservation) -> Bool {
        lhs.json == rhs.json
    }

    /// The `observed` object of docs/device-api.md; `timestamp` as RFC 3339 (whole seconds), absent values as null.
    public var json: JSON {
        .object([
            JSON.Member("packageName", .optional(packageName)),
            JSON.Member("certificateDigests", .array(certificateDigests.map { .string($0) })),
            JSON.Member("appRecognitionVerdict", .optional(appRecognitionVerdict)),
            JSON.Member("deviceRecognitionVerdict", .array(deviceRecognitionVerdict.map { .string($0) })),
            JSON.Member("appLicensingVerdict", .optional(appLicensingVerdict)),
            JSON.Member("playProtectVerdict", .optional(playProtectVerdict)),
            JSON.Member("appsDetected", .array(appsDetected.map { .string($0) })),
            JSON.Member("deviceActivityLevel", .optional(deviceActivityLevel)),
            JSON.Member("timestamp", .optional(timestampMillis.map { Timestamp.format(Self.floorSeconds($0)) })),
            JSON.Member("versionCode", versionCode.map { .int($0) } ?? .null),
            JSON.Member("requestPackageName", .optional(requestPackageName)),
            JSON.Member("legacyDeviceRecognitionVerdict", .array(legacyDeviceRecognitionVerdict.map { .string($0) })),
            JSON.Member("sdkVersion", sdkVersion.map { .int(Int64($0)) } ?? .null),
            JSON.Member("deviceRecall", deviceRecall.map { recall in
                .object([JSON.Member("bits", .array(recall.bits.map { $0.map(JSON.bool) ?? .null })),
                         JSON.Member("writeDates", .array(recall.writeDates.map { .optional($0) }))])
            } ?? .null),
            JSON.Member("accountActivity", .optional(accountActivity)),
            JSON.Member("locationSpoofingRisk", .array(locationSpoofingRisk.map { .string($0) })),
            JSON.Member("isTestingResponse", isTestingResponse.map(JSON.bool) ?? .null),
        ] + (otherApps.map { [JSON.Member("otherApps", .string($0))] } ?? [])
          + (playOrSystemApps.map { [JSON.Member("playOrSystemApps", .string($0))] } ?? []))
    }

    private static func floorSeconds(_ milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 1000 : -((-milliseconds + 999) / 1000)
    }
}
