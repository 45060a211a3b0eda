/// The Play Integrity verdict a simulated Android phone's token carries (`--verdict`).
public enum SimulatedVerdict: String, Sendable, CaseIterable {
    /// Play-recognized, device integrity, licensed: passes the default policy (a strong-integrity policy refuses it,
    /// `strongIntegrityNotMet`, offering `GET_STRONG_INTEGRITY`).
    case genuine
    /// As genuine, with strong integrity too (a recent phone with a recent security update).
    case strong
    /// A tester's response overridden in Play Console (`isTestingResponse`): `testingResponse` in production.
    case testing
    /// A version code (1) below any sensible minimum: `versionCode:1` under a minimum.
    case outdated
    /// No device integrity (rooted, hooked): `deviceIntegrityNotMet`.
    case rooted
    /// Only basic integrity: `basicIntegrityOnly`.
    case basic
    /// An emulator: `virtualDevice`.
    case emulator
    /// A binary Play does not recognize (sideloaded, repackaged): `appVerdict:UNRECOGNIZED_VERSION`.
    case unrecognized
    /// Not licensed through Play: `unlicensed`.
    case unlicensed

    /// Changes a passing payload into this verdict's.
    func apply(_ payload: inout PlayIntegrityPayloadTemplate) {
        switch self {
        case .genuine: break
        case .strong: payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY", "MEETS_STRONG_INTEGRITY"]
        case .testing: payload.isTestingResponse = true
        case .outdated: payload.versionCode = 1
        case .rooted: payload.deviceRecognitionVerdict = []
        case .basic: payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"]
        case .emulator: payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"]
        case .unrecognized: payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        case .unlicensed: payload.appLicensingVerdict = "UNLICENSED"
        }
    }
}
