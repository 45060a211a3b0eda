import Foundation
import Gatehouse
import Testing

@Suite("Registration rules")
struct ValidationTests {
    @Test("package names follow Android's application-id rules", arguments: [
        ("com.example.app", true), ("a.b", true), ("com.Example_1.app2", true), ("x", false), ("com..app", false),
        (".com.app", false), ("com.app.", false), ("1com.app", false), ("com.1app", false), ("com.ex-ample", false),
        ("com.é.app", false), ("", false), ("com._app", false),
    ])
    func packageNames(name: String, valid: Bool) {
        #expect(PackageName.isValid(name) == valid)
    }

    @Test func packageNameLengthLimit() {
        let long = "com." + String(repeating: "a", count: 251)
        #expect(long.utf8.count == 255)
        #expect(PackageName.isValid(long))
        #expect(!PackageName.isValid(long + "a"))
    }

    @Test("apple app ids are TEAMID.bundleId", arguments: [
        ("ABCDE12345.com.example.app", true), ("ABCDE12345.app", true), ("ABCDE12345.com.ex-ample.App1", true),
        ("abcde12345.com.example.app", false), ("ABCDE1234.com.example.app", false), ("ABCDE123456.com.example", false),
        ("ABCDE12345.", false), ("ABCDE12345..app", false), ("ABCDE12345.com..app", false), ("ABCDE12345.com.app.", false),
        ("ABCDE12345.com/app", false), ("ABCDE12345com.example.app", false),
    ])
    func appleAppIDs(id: String, valid: Bool) {
        #expect(AppleAppID.isValid(id) == valid)
    }

    static let digestBytes: [UInt8] = (0..<32).map { UInt8($0 * 7 + 3) }
    static let colonHex = digestBytes.map { String(format: "%02X", $0) }.joined(separator: ":")

    @Test("digests in every accepted encoding normalize to the same bytes", arguments: [
        colonHex, colonHex.lowercased(), colonHex.replacingOccurrences(of: ":", with: ""),
        colonHex.replacingOccurrences(of: ":", with: "").lowercased(),
    ])
    func hexDigests(text: String) throws {
        #expect(CertificateDigest.parse(text) == Self.digestBytes)
    }

    @Test func base64Digests() throws {
        // Standard with padding, without padding, URL-safe.
        let standard = "AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw="
        let bytes = try #require(CertificateDigest.parse(standard))
        #expect(bytes.count == 32)
        #expect(CertificateDigest.parse(String(standard.dropLast())) == bytes)
        #expect(CertificateDigest.format(bytes) == CertificateDigest.format(Self.digestBytes))
        #expect(CertificateDigest.parse("AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw") == Self.digestBytes)
    }

    @Test("non-digests are refused", arguments: [
        "", "AB:CD", String(repeating: "A", count: 62), String(repeating: "A", count: 66), "zz" + String(repeating: "A", count: 62),
        "AB:CD" + String(repeating: ":AB", count: 31), "AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO", // 30 bytes
    ])
    func badDigests(text: String) {
        #expect(CertificateDigest.parse(text) == nil)
    }

    @Test func formatIsUppercaseColonHex() {
        #expect(CertificateDigest.format([0xAB, 0x0C, 0xFF]) == "AB:0C:FF")
    }
}
