import Crypto
import JSON

/// A verdict payload shaped like Google's `tokenPayloadExternal`, passing every check by default (Play-recognized
/// app, device integrity, licensed, no Play Protect issue, nothing risky detected, low activity). Change a field to
/// make it fail one check; `json` renders it.
public struct PlayIntegrityPayloadTemplate: Sendable {
    /// `requestDetails.requestHash`, or `.nonce` when `classic`.
    public var requestHash: String
    /// A classic request: the binding goes in `nonce` instead of `requestHash`.
    public var classic = false
    /// `requestDetails.timestampMillis` (Unix milliseconds), written as a decimal string as Google does.
    public var timestampMillis: Int64
    /// `requestDetails.requestPackageName`; nil leaves it out.
    public var requestPackageName: String?
    /// `appIntegrity.packageName`; nil leaves it out.
    public var packageName: String?
    /// `appIntegrity.certificateSha256Digest`, written base64url without padding; empty leaves it out.
    public var certificateDigests: [[UInt8]]
    /// `appIntegrity.appRecognitionVerdict`; nil leaves it out.
    public var appRecognitionVerdict: String? = "PLAY_RECOGNIZED"
    /// `deviceIntegrity.deviceRecognitionVerdict`.
    public var deviceRecognitionVerdict: [String] = ["MEETS_DEVICE_INTEGRITY"]
    /// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel`; nil leaves it out.
    public var deviceActivityLevel: String? = "LEVEL_1"
    /// `accountDetails.appLicensingVerdict`; nil leaves it out.
    public var appLicensingVerdict: String? = "LICENSED"
    /// `environmentDetails.playProtectVerdict`; nil leaves it out.
    public var playProtectVerdict: String? = "NO_ISSUES"
    /// `environmentDetails.appAccessRiskVerdict.appsDetected`.
    public var appsDetected: [String] = ["KNOWN_INSTALLED"]
    /// `appIntegrity.versionCode` (written as a decimal string, as Google does).
    public var versionCode: Int64 = 42
    /// `deviceIntegrity.deviceAttributes.sdkVersion`; nil leaves it out.
    public var sdkVersion: Int? = 34
    /// `deviceIntegrity.legacyDeviceRecognitionVerdict`; empty leaves it out.
    public var legacyDeviceRecognitionVerdict: [String] = []
    /// `testingDetails.isTestingResponse`; nil leaves it out.
    public var isTestingResponse: Bool?
    /// `accountDetails.accountActivity.activityLevel`; nil leaves it out.
    public var accountActivity: String?

    /// A passing payload for `packageName` signed with a certificate of digest `certificateDigest`, bound to
    /// `requestHash`, made at `timestampMillis`.
    public init(packageName: String, certificateDigest: [UInt8], requestHash: String, timestampMillis: Int64) {
        self.packageName = packageName
        self.requestPackageName = packageName
        self.certificateDigests = [certificateDigest]
        self.requestHash = requestHash
        self.timestampMillis = timestampMillis
    }

    /// The payload as JSON.
    public var json: JSON {
        var request: [JSON.Member] = []
        if let requestPackageName { request.append(JSON.Member("requestPackageName", .string(requestPackageName))) }
        request.append(JSON.Member(classic ? "nonce" : "requestHash", .string(requestHash)))
        request.append(JSON.Member("timestampMillis", .string(String(timestampMillis))))

        var app: [JSON.Member] = []
        if let appRecognitionVerdict { app.append(JSON.Member("appRecognitionVerdict", .string(appRecognitionVerdict))) }
        if let packageName { app.append(JSON.Member("packageName", .string(packageName))) }
        if !certificateDigests.isEmpty {
            app.append(JSON.Member("certificateSha256Digest", .array(certificateDigests.map {
                .string(Base64.encode($0, alphabet: .urlSafe, padded: false))
            })))
        }
        app.append(JSON.Member("versionCode", .string(String(versionCode))))

        var device: [JSON.Member] = [JSON.Member("deviceRecognitionVerdict", .array(deviceRecognitionVerdict.map { .string($0) }))]
        if let deviceActivityLevel {
            device.append(JSON.Member("recentDeviceActivity", .object([JSON.Member("deviceActivityLevel", .string(deviceActivityLevel))])))
        }
        if !legacyDeviceRecognitionVerdict.isEmpty {
            device.append(JSON.Member("legacyDeviceRecognitionVerdict", .array(legacyDeviceRecognitionVerdict.map { .string($0) })))
        }
        if let sdkVersion { device.append(JSON.Member("deviceAttributes", .object([JSON.Member("sdkVersion", .int(Int64(sdkVersion)))]))) }

        var members: [JSON.Member] = [
            JSON.Member("requestDetails", .object(request)),
            JSON.Member("appIntegrity", .object(app)),
            JSON.Member("deviceIntegrity", .object(device)),
        ]
        var account: [JSON.Member] = []
        if let appLicensingVerdict { account.append(JSON.Member("appLicensingVerdict", .string(appLicensingVerdict))) }
        if let accountActivity { account.append(JSON.Member("accountActivity", .object([JSON.Member("activityLevel", .string(accountActivity))]))) }
        if !account.isEmpty { members.append(JSON.Member("accountDetails", .object(account))) }
        var environment: [JSON.Member] = []
        if let playProtectVerdict { environment.append(JSON.Member("playProtectVerdict", .string(playProtectVerdict))) }
        environment.append(JSON.Member("appAccessRiskVerdict", .object([
            JSON.Member("appsDetected", .array(appsDetected.map { .string($0) })),
        ])))
        members.append(JSON.Member("environmentDetails", .object(environment)))
        if let isTestingResponse {
            members.append(JSON.Member("testingDetails", .object([JSON.Member("isTestingResponse", .bool(isTestingResponse))])))
        }
        return .object(members)
    }
}
