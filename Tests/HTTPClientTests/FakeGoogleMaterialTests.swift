import FakeGoogle
import Testing

/// The one test that fails when the fake Google's TLS material cannot be made (the suites that need it are skipped).
@Suite struct FakeGoogleMaterialTests {
    @Test func theFakeGooglesCertificatesAreMadeWithOpenSSL() throws {
        _ = try TLSMaterial.shared()
    }
}
