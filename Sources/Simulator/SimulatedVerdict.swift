/// The Play Integrity verdict a simulated Android phone's token carries (`--verdict`).
public enum SimulatedVerdict: String, Sendable, CaseIterable {
    /// Play-recognized, device integrity, licensed: passes every check.
    case genuine
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
        case .rooted: payload.deviceRecognitionVerdict = []
        case .basic: payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"]
        case .emulator: payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"]
        case .unrecognized: payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        case .unlicensed: payload.appLicensingVerdict = "UNLICENSED"
        }
    }
}
