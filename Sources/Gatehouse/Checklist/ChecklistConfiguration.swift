/// What an environment registered for attestation, as the setup checklist needs to see it.
///
/// The checklist never reads secrets: it only needs to know whether a credential is set.
public struct ChecklistConfiguration: Sendable, Equatable {
    /// The environment's kind: `"production"` or `"development"`. Anything else is treated as production,
    /// the stricter of the two.
    public var kind: String
    /// Whether attack mode is switched on (phones that could attest and did not are challenged).
    public var attackMode: Bool
    /// The Android apps registered, with their signing certificate digests.
    public var androidApps: [AndroidAppSetup]
    /// The Apple app ids registered for App Attest, each `"TEAMID.bundleId"` (the App ID prefix Apple signs with).
    public var appleAppIds: [String]
    /// Whether a Play Integrity service account (decoding through Google) is set.
    public var serviceAccountSet: Bool
    /// Whether Play Integrity response keys (decoding on this server) are set.
    public var localKeysSet: Bool
    /// How many secret keys of the environment are active (they report verdicts and verify receipts).
    public var activeSecretKeys: Int
    /// Calls to Google's decodeIntegrityToken today (Pacific time, Google's day).
    public var googleDecodesToday: Int
    /// The most Play Integrity tokens judged today for one package (every token a phone asked Google for, decoded
    /// here or by Google).
    public var tokensToday = 0
    /// The last hour of the past day in which the hourly cap on Google calls for tokens Google could not decode
    /// refused tokens (`--google-undecodable-per-hour`), or nil.
    public var googleUndecodableCapped: CappedHour?
    /// Whether the environment accepts Android key attestation (its policy's `enabled`).
    public var keyAttestationEnabled = false
    /// The boot keys the Key Attestation policy accepts for a self-signed boot (lowercase hex).
    public var keyAttestationBootKeys: [String] = []
    /// The Key Attestation policy's least patch level, `YYYY-MM` (nil: none).
    public var keyAttestationMinimumPatchLevel: String?
    /// How long ago Google's key attestation status list was fetched, in seconds (nil: never).
    public var statusListAge: Int64?
    /// The Play Integrity policy's lowest version code per package.
    public var minimumVersionCodes: [String: Int64] = [:]
    /// The environment's daily quota of those calls.
    public var dailyQuota: Int
    /// The names of the environment's active debug tokens (unrevoked, unexpired), oldest first.
    public var activeDebugTokens: [String]
    /// The week's judged calls per enforcement route, with each route's mode (`GET …/enforcement`'s figures).
    public var enforcementRoutes: [RouteOutcomes]
    /// The launch validation categories the App Attest policy accepts (labels), nil when it accepts any.
    public var validationCategories: [String]? = nil
    /// The DeviceCheck key's identifiers, when one is set.
    public var deviceCheckKey: DeviceCheckKeyID? = nil
    /// The receipt refresher's state (a refused key, the last pass).
    public var receiptRefresh = AppleReceiptRefreshState()
    /// Each key's latest risk metric this week, and the week before.
    public var riskMetricsThisWeek = RiskMetricDistribution([])
    public var riskMetricsPreviousWeek = RiskMetricDistribution([])

    /// Creates a configuration; every argument has the value of a freshly created, empty environment.
    public init(
        kind: String = "production",
        attackMode: Bool = false,
        androidApps: [AndroidAppSetup] = [],
        appleAppIds: [String] = [],
        serviceAccountSet: Bool = false,
        localKeysSet: Bool = false,
        activeSecretKeys: Int = 0,
        googleDecodesToday: Int = 0,
        dailyQuota: Int = PlayIntegrityStatus.defaultDailyQuota,
        activeDebugTokens: [String] = [],
        enforcementRoutes: [RouteOutcomes] = []
    ) {
        self.enforcementRoutes = enforcementRoutes
        self.activeDebugTokens = activeDebugTokens
        self.googleDecodesToday = googleDecodesToday
        self.dailyQuota = dailyQuota
        self.kind = kind
        self.attackMode = attackMode
        self.androidApps = androidApps
        self.appleAppIds = appleAppIds
        self.serviceAccountSet = serviceAccountSet
        self.localKeysSet = localKeysSet
        self.activeSecretKeys = activeSecretKeys
    }

    /// Whether this is a development environment, where development App Attest keys are expected.
    var isDevelopment: Bool { kind == "development" }

    /// Whether the server can decode a Play Integrity verdict at all (a service account or local keys).
    var playIntegrityDecodable: Bool { serviceAccountSet || localKeysSet }
}
