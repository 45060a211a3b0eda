extension Reason {
    // Key registration (docs/device-api.md "App Attest", "Key registration").

    /// forged: the attestation object does not decode, has the wrong `fmt`, lacks fields, or its counter is not 0.
    public static let attestationInvalid = Reason(.forged, "attestationInvalid")
    /// forged: the `x5c` chain does not verify to the App Attest root at the verification time.
    public static let certificateChainInvalid = Reason(.forged, "certificateChainInvalid")
    /// forged: SHA-256(authData ‖ clientDataHash) differs from the leaf's nonce extension.
    public static let nonceMismatch = Reason(.forged, "nonceMismatch")
    /// forged: the key id claimed, SHA-256 of the leaf key and the credential id are not all equal.
    public static let keyIdMismatch = Reason(.forged, "keyIdMismatch")
    /// rejected: the rpIdHash is the hash of none of the registered app ids.
    public static let appIdNotRegistered = Reason(.rejected, "appIdNotRegistered")
    /// rejected: a development key in a production environment.
    public static let developmentKey = Reason(.rejected, "developmentKey")
    /// unavailable: the environment registered no app id, so nothing can be judged.
    public static let notConfigured = Reason(.unavailable, "notConfigured")
    /// rejected: the challenge is unknown, used or expired (state: produced by the server side).
    public static let challengeInvalid = Reason(.rejected, "challengeInvalid")
    /// rejected: the key id is registered already (state: produced by the server side).
    public static let keyAlreadyRegistered = Reason(.rejected, "keyAlreadyRegistered")

    // Assertions (docs/device-api.md "Assertion").

    /// forged: the assertion does not decode or its signature does not verify.
    public static let assertionInvalid = Reason(.forged, "assertionInvalid")
    /// forged: the assertion's rpIdHash is not the hash of the key's app id.
    public static let rpIdMismatch = Reason(.forged, "rpIdMismatch")
    /// forged: the counter was presented before.
    public static let counterReused = Reason(.forged, "counterReused")
    /// rejected: the counter is 32 or more below the newest.
    public static let counterRegression = Reason(.rejected, "counterRegression")
    /// forged: the request names no key (state: produced by the server side).
    public static let missingKeyId = Reason(.forged, "missingKeyId")
    /// forged: the request names a key that never registered (state: produced by the server side).
    public static let unknownKeyId = Reason(.forged, "unknownKeyId")

    // App Attest in depth (docs/device-api.md "Launch validation and bundle version", "Using the metric").

    /// rejected: the launch validation category is not among the environment's.
    public static func validationCategory(_ category: ValidationCategory) -> Reason {
        Reason(.rejected, "validationCategory:" + category.label)
    }
    /// rejected: the object carries no validation category and the environment requires one.
    public static let validationCategoryMissing = Reason(.rejected, "validationCategoryMissing")
    /// rejected: the bundle version is below the environment's minimum.
    public static func bundleVersion(_ version: String) -> Reason {
        Reason(.rejected, "bundleVersion:" + version)
    }
    /// rejected: the key's last risk metric from Apple is above the environment's bound.
    public static let riskMetricHigh = Reason(.rejected, "riskMetricHigh")
}
