import Testing
import TestSupport

/// The openssl helper must report failures, or certificate tests could pass on files that were never made.
@Suite struct SupportTests {
    @Test func opensslHelperReportsFailures() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: TestSupportError.self) { try openssl(["x509", "-in", "missing.pem"], in: directory.path) }
        #expect(throws: TestSupportError.self) { try openssl(["pkey", "-in", "missing.pem"], in: directory.path) }
        let output = try openssl(["rand", "-hex", "4"], in: directory.path)
        #expect(output.count == 9)
    }
}
