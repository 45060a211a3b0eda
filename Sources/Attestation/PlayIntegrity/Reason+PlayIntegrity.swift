extension Reason {
    // Play Integrity (docs/device-api.md "Play Integrity"), in the order the checks run.

    /// forged: the JWE does not decrypt with the decryption key, or is not `A256KW`/`A256GCM`, or is malformed.
    public static let decryptionFailed = Reason(.forged, "decryptionFailed")
    /// forged: the JWS signature does not verify with the verification key, or it is not `ES256`, or is malformed.
    public static let signatureInvalid = Reason(.forged, "signatureInvalid")
    /// forged: `requestDetails.requestHash` (or the classic `.nonce`) is not the request's `requestHash`.
    public static let requestMismatch = Reason(.forged, "requestMismatch")
    /// rejected: `timestampMillis` is missing or more than the allowed age before or after now.
    public static let staleVerdict = Reason(.rejected, "staleVerdict")
    /// rejected: the same token was presented before (state: the caller says so).
    public static let verdictReplayed = Reason(.rejected, "verdictReplayed")
    /// rejected: `appIntegrity.packageName` is not registered in the environment.
    public static let packageNotRegistered = Reason(.rejected, "packageNotRegistered")
    /// rejected: the token's package is registered but is not the package the request names.
    public static let packageMismatch = Reason(.rejected, "packageMismatch")
    /// rejected: none of `certificateSha256Digest` is registered for the package.
    public static let certificateMismatch = Reason(.rejected, "certificateMismatch")
    /// rejected: the device meets only `MEETS_VIRTUAL_INTEGRITY` (an emulator Google vouches for).
    public static let virtualDevice = Reason(.rejected, "virtualDevice")
    /// rejected: the device meets only `MEETS_BASIC_INTEGRITY`.
    public static let basicIntegrityOnly = Reason(.rejected, "basicIntegrityOnly")
    /// rejected: the device meets no integrity level.
    public static let deviceIntegrityNotMet = Reason(.rejected, "deviceIntegrityNotMet")
    /// rejected: `appLicensingVerdict` is `UNLICENSED`.
    public static let unlicensed = Reason(.rejected, "unlicensed")
    /// rejected: `appsDetected` has `UNKNOWN_CONTROLLING` (an unknown app controlling the screen).
    public static let controllingAppDetected = Reason(.rejected, "controllingAppDetected")
    /// rejected: `appsDetected` has `UNKNOWN_CAPTURING` (an unknown app capturing the screen).
    public static let capturingAppDetected = Reason(.rejected, "capturingAppDetected")
    /// rejected: `deviceActivityLevel` is `LEVEL_4` (verdicts asked at device-farm volume).
    public static let highDeviceActivity = Reason(.rejected, "highDeviceActivity")
    /// rejected: the policy asks `MEETS_STRONG_INTEGRITY` and the device does not meet it.
    public static let strongIntegrityNotMet = Reason(.rejected, "strongIntegrityNotMet")
    /// rejected: the policy asks `deviceAttributes.sdkVersion` and the verdict has none.
    public static let sdkVersionMissing = Reason(.rejected, "sdkVersionMissing")
    /// rejected: `appsDetected` has `UNKNOWN_OVERLAYS` and the policy refuses it.
    public static let overlayAppDetected = Reason(.rejected, "overlayAppDetected")
    /// rejected: `appsDetected` has `UNKNOWN_INSTALLED` and the policy refuses it.
    public static let unknownAppInstalled = Reason(.rejected, "unknownAppInstalled")
    /// rejected: `appsDetected` has `KNOWN_CONTROLLING` and the policy refuses it.
    public static let knownControllingAppDetected = Reason(.rejected, "knownControllingAppDetected")
    /// rejected: `appsDetected` has `KNOWN_CAPTURING` and the policy refuses it.
    public static let knownCapturingAppDetected = Reason(.rejected, "knownCapturingAppDetected")
    /// rejected: `appsDetected` has `KNOWN_OVERLAYS` and the policy refuses it.
    public static let knownOverlayAppDetected = Reason(.rejected, "knownOverlayAppDetected")
    /// rejected: `appsDetected` has `KNOWN_INSTALLED` and the policy refuses it.
    public static let knownAppInstalled = Reason(.rejected, "knownAppInstalled")
    /// rejected: `testingDetails.isTestingResponse`: a tester's overridden verdict, refused (in production by default).
    public static let testingResponse = Reason(.rejected, "testingResponse")
    /// rejected: `accountActivity` is `UNUSUAL` and the policy refuses it.
    public static let unusualAccountActivity = Reason(.rejected, "unusualAccountActivity")
    /// unavailable: Google could not be reached, answered 5xx, or not in time (produced by the server side).
    public static let googleUnreachable = Reason(.unavailable, "googleUnreachable")
    /// unavailable: the call to Google was not made to save the project's quota: the client address spent its hourly
    /// budget, or today's calls reached 95 % of the daily quota (produced by the server side).
    public static let googleBudgetExceeded = Reason(.unavailable, "googleBudgetExceeded")
    /// unavailable: Google refused the service account, 401 or 403 (produced by the server side).
    public static let serviceAccountRejected = Reason(.unavailable, "serviceAccountRejected")

    /// rejected `appVerdict:<value>`: Google does not recognize the binary (`appRecognitionVerdict` other than
    /// `PLAY_RECOGNIZED`). A value that is not an upper-case identifier of at most 64 characters reads `UNKNOWN`.
    public static func appVerdict(_ value: String) -> Reason {
        Reason(.rejected, "appVerdict:" + PlayIntegrityPayload.identifier(value))
    }

    /// rejected `versionCode:<n>`: `appIntegrity.versionCode` is below the policy's minimum for the package.
    public static func versionCode(_ value: Int64) -> Reason {
        Reason(.rejected, "versionCode:\(value)")
    }

    /// rejected `sdkVersion:<n>`: `deviceAttributes.sdkVersion` is below the policy's minimum.
    public static func sdkVersion(_ value: Int) -> Reason {
        Reason(.rejected, "sdkVersion:\(value)")
    }

    /// The reason of an `appsDetected` value the policy refuses.
    static func appDetected(_ value: String) -> Reason? {
        switch value {
        case "UNKNOWN_CONTROLLING": .controllingAppDetected
        case "UNKNOWN_CAPTURING": .capturingAppDetected
        case "UNKNOWN_OVERLAYS": .overlayAppDetected
        case "UNKNOWN_INSTALLED": .unknownAppInstalled
        case "KNOWN_CONTROLLING": .knownControllingAppDetected
        case "KNOWN_CAPTURING": .knownCapturingAppDetected
        case "KNOWN_OVERLAYS": .knownOverlayAppDetected
        case "KNOWN_INSTALLED": .knownAppInstalled
        default: nil
        }
    }

    /// rejected `playProtect:<value>` for a verdict worse than the policy accepts (`MEDIUM_RISK`, `HIGH_RISK` by default).
    public static func playProtect(_ value: String) -> Reason {
        Reason(.rejected, "playProtect:" + PlayIntegrityPayload.identifier(value))
    }
}
