import Crypto
import JSON

/// The fields of a verdict payload (Google's `tokenPayloadExternal`) that the checks read. Read leniently: a
/// missing member or one of the wrong type is absent, never an error (the payload is signed by Google; what it
/// omits, the checks judge).
struct PlayIntegrityPayload: Sendable {
    /// Most entries read from any list (verdicts, digests, detected apps).
    static let maxListCount = 32

    /// `requestDetails.requestHash` (standard requests).
    var requestHash: String?
    /// `requestDetails.nonce` (classic requests).
    var nonce: String?
    /// `requestDetails.requestPackageName`.
    var requestPackageName: String?
    /// `requestDetails.timestampMillis` (Google writes a decimal string; a number is accepted too).
    var timestampMillis: Int64?
    /// `appIntegrity.packageName`.
    var packageName: String?
    /// `appIntegrity.certificateSha256Digest`, each decoded (base64url without padding, 32 bytes); undecodable
    /// entries are left out.
    var certificateDigests: [[UInt8]] = []
    /// Whether `appIntegrity.certificateSha256Digest` names any certificate at all.
    var namesCertificates = false
    /// `appIntegrity.appRecognitionVerdict`.
    var appRecognitionVerdict: String?
    /// `deviceIntegrity.deviceRecognitionVerdict`.
    var deviceRecognitionVerdict: [String] = []
    /// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel`.
    var deviceActivityLevel: String?
    /// `accountDetails.appLicensingVerdict`.
    var appLicensingVerdict: String?
    /// `environmentDetails.playProtectVerdict`.
    var playProtectVerdict: String?
    /// `environmentDetails.appAccessRiskVerdict.appsDetected`.
    var appsDetected: [String] = []
    /// `appIntegrity.versionCode` (Google writes a decimal string; a number is accepted too).
    var versionCode: Int64?
    /// `deviceIntegrity.legacyDeviceRecognitionVerdict` (Android 13+ during the move to the new verdicts).
    var legacyDeviceRecognitionVerdict: [String] = []
    /// `deviceIntegrity.deviceAttributes.sdkVersion`.
    var sdkVersion: Int?
    /// `deviceIntegrity.deviceRecall`: the three bits and their write months (`YYYYMM`), each nil when absent.
    var deviceRecallBits: [Bool?]?
    var deviceRecallWriteDates: [String?] = []
    /// `accountDetails.accountActivity.activityLevel`.
    var accountActivity: String?
    /// `environmentDetails.locationSpoofingRiskVerdict` (an opt-in, a list or a single value).
    var locationSpoofingRisk: [String] = []
    /// `testingDetails.isTestingResponse`.
    var isTestingResponse: Bool?
    /// The deprecated `appAccessRiskVerdict.otherApps` and `.playOrSystemApps`, as they came.
    var otherApps: String?
    var playOrSystemApps: String?

    /// Reads the fields from a payload object.
    init(_ json: JSON) {
        let request = json["requestDetails"]
        requestHash = request?["requestHash"]?.string
        nonce = request?["nonce"]?.string
        requestPackageName = request?["requestPackageName"]?.string
        timestampMillis = request?["timestampMillis"].flatMap(Self.milliseconds)

        let app = json["appIntegrity"]
        packageName = app?["packageName"]?.string
        let digests = Self.strings(app?["certificateSha256Digest"])
        namesCertificates = !digests.isEmpty
        certificateDigests = digests.compactMap { text in
            guard let bytes = Base64.decode(text), bytes.count == 32 else { return nil }
            return bytes
        }
        appRecognitionVerdict = app?["appRecognitionVerdict"]?.string
        versionCode = app?["versionCode"].flatMap(Self.milliseconds)

        let device = json["deviceIntegrity"]
        deviceRecognitionVerdict = Self.strings(device?["deviceRecognitionVerdict"])
        deviceActivityLevel = device?["recentDeviceActivity"]?["deviceActivityLevel"]?.string
        legacyDeviceRecognitionVerdict = Self.strings(device?["legacyDeviceRecognitionVerdict"])
        sdkVersion = device?["deviceAttributes"]?["sdkVersion"].flatMap(Self.milliseconds).flatMap { Int(exactly: $0) }
        if let recall = device?["deviceRecall"], recall.members != nil {
            let values = recall["values"]
            deviceRecallBits = ["bitFirst", "bitSecond", "bitThird"].map { values?[$0]?.bool }
            let dates = recall["writeDates"]
            deviceRecallWriteDates = ["yyyymmFirst", "yyyymmSecond", "yyyymmThird"].map { name in
                // YYYYMM: a year of four digits and a month from 01 to 12; anything else is absent.
                dates?[name].flatMap(Self.milliseconds).flatMap { value in
                    (100_001...999_912).contains(value) && (1...12).contains(value % 100) ? String(value) : nil
                }
            }
        }

        let account = json["accountDetails"]
        appLicensingVerdict = account?["appLicensingVerdict"]?.string
        accountActivity = account?["accountActivity"]?["activityLevel"]?.string

        let environment = json["environmentDetails"]
        playProtectVerdict = environment?["playProtectVerdict"]?.string
        let access = environment?["appAccessRiskVerdict"]
        appsDetected = Self.strings(access?["appsDetected"])
        otherApps = access?["otherApps"]?.string
        playOrSystemApps = access?["playOrSystemApps"]?.string
        if let spoofing = environment?["locationSpoofingRiskVerdict"] {
            locationSpoofingRisk = spoofing.string.map { [$0] } ?? Self.strings(spoofing)
        }
        isTestingResponse = json["testingDetails"]?["isTestingResponse"]?.bool
    }

    /// The strings of a JSON array (others skipped), at most ``maxListCount``.
    static func strings(_ json: JSON?) -> [String] {
        guard let array = json?.array else { return [] }
        return Array(array.lazy.compactMap(\.string).prefix(maxListCount))
    }

    /// Milliseconds from a decimal string of 1 to 18 digits, or an integral JSON number.
    static func milliseconds(_ json: JSON) -> Int64? {
        if let integer = json.integer { return Int64(integer) }
        guard let text = json.string, (1...18).contains(text.utf8.count),
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }

    /// `value` when it is an upper-case identifier (`A–Z 0–9 _`, 1 to 64 characters), as Google's verdict values
    /// are; `UNKNOWN` otherwise, so a reason code never carries arbitrary text.
    static func identifier(_ value: String) -> String {
        let ok = (1...64).contains(value.utf8.count) && value.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_")
        }
        return ok ? value : "UNKNOWN"
    }
}
