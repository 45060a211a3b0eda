import ChildProcess
import TestSupport
import Foundation

/// A throwaway certificate authority and a server certificate it issued for `127.0.0.1` (and `fake.google.test`),
/// made once per test process with the `openssl` command-line tool in a temporary directory.
public struct TLSMaterial: Sendable {
    /// The directory holding the files.
    public let directory: String
    /// The CA certificate (PEM): what clients pass as their CA file.
    public let caFile: String
    /// The server's certificate and key (PEM).
    public let serverCertificate: String
    public let serverKey: String

    /// The material of this process, made on first use.
    public static func shared() throws -> TLSMaterial { try made.get() }

    private static let made: Result<TLSMaterial, any Error> = Result { try TLSMaterial() }

    /// Whether the material could be made (``needsFakeGoogleTLS`` skips the suites that need it when not).
    public static var isMade: Bool { (try? made.get()) != nil }

    private init() throws {
        directory = NSTemporaryDirectory() + "gatehouse-fake-google-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        caFile = directory + "/ca.pem"
        serverCertificate = directory + "/server.pem"
        serverKey = directory + "/server.key"
        let caKey = directory + "/ca.key"
        let request = directory + "/server.csr"
        let extensions = directory + "/server.ext"
        try "subjectAltName=IP:127.0.0.1,DNS:fake.google.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        _ = try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", caKey, "-out", caFile, "-days", "2", "-subj", "/CN=Gatehouse throwaway test CA"], in: directory)
        _ = try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", serverKey, "-out", request, "-subj", "/CN=fake.google.test"], in: directory)
        _ = try openssl(["x509", "-req", "-in", request, "-CA", caFile, "-CAkey", caKey, "-CAcreateserial",
                          "-out", serverCertificate, "-days", "2", "-extfile", extensions], in: directory)
    }
}

/// A failure of the test support (the fake would not start, openssl failed…).
public struct FakeGoogleError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}
