import Foundation

/// Apple App Attestation Root CA, as Apple publishes it at
/// https://www.apple.com/certificateauthority/Apple_App_Attestation_Root_CA.pem (Fixtures/, see its NOTICE.md).
/// SHA-256 of the DER: 1C:B9:82:3B:A2:8B:A6:AD:2D:33:A0:06:94:1D:E2:AE:4F:51:3E:F1:D4:E8:31:B9:F7:E0:FA:7B:62:42:C9:32.
/// - Throws: when the fixture is missing from the bundle.
public func appleAppAttestationRootPEM() throws -> String {
    guard let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
        throw TestSupportError(description: "no Fixtures in TestSupport's bundle")
    }
    return try String(contentsOf: fixtures.appendingPathComponent("apple_app_attestation_root_ca.pem"), encoding: .utf8)
}
