import Gatehouse
import JSON
import Testing

@Suite("Merge-patch documents")
struct EnvironmentPatchTests {
    static let digest = String(repeating: "AB", count: 32)

    @Test func absentNullAndValue() throws {
        let patch = try EnvironmentPatch.parse(try JSONParser.parse(#"{"appleAppIds": null, "androidApps": [{"packageName": "com.example.app", "certificateDigests": ["\#(Self.digest)"]}]}"#))
        #expect(patch.name == nil)
        #expect(patch.appleAppIDs == .remove)
        #expect(patch.serviceAccount == .absent)
        guard case .set(let apps) = patch.androidApps else {
            Issue.record("androidApps not set")
            return
        }
        #expect(apps.first?.packageName == "com.example.app")
        #expect(apps.first?.certificateDigests.first == [UInt8](repeating: 0xAB, count: 32))
        #expect(apps.first?.outsidePlay == false)
    }

    @Test func playIntegrityNullRemovesBoth() throws {
        let patch = try EnvironmentPatch.parse(try JSONParser.parse(#"{"playIntegrity": null}"#))
        #expect(patch.serviceAccount == .remove)
        #expect(patch.localKeys == .remove)
    }

    @Test func duplicatesCollapseAfterNormalization() throws {
        let colon = stride(from: 0, to: 64, by: 2).map { _ in "AB" }.joined(separator: ":")
        let patch = try EnvironmentPatch.parse(try JSONParser.parse(#"{"androidApps": [{"packageName": "a.b", "certificateDigests": ["\#(Self.digest)", "\#(colon)", "\#(Self.digest.lowercased())"]}]}"#))
        guard case .set(let apps) = patch.androidApps else {
            Issue.record("androidApps not set")
            return
        }
        #expect(apps[0].certificateDigests.count == 1)
    }

    @Test("every invalid field is listed by pointer", arguments: [
        (#"{"name": ""}"#, ["/name"]),
        (#"{"name": 3, "kind": "staging"}"#, ["/name", "/kind"]),
        (#"{"attackMode": "yes"}"#, ["/attackMode"]),
        (#"{"androidApps": {}}"#, ["/androidApps"]),
        (#"{"androidApps": [{"packageName": "nope"}]}"#, ["/androidApps/0/packageName"]),
        (#"{"androidApps": [{"certificateDigests": []}]}"#, ["/androidApps/0/packageName"]),
        (#"{"androidApps": [{"packageName": "a.b", "certificateDigests": ["\#(digest)", "xx"]}]}"#, ["/androidApps/0/certificateDigests/1"]),
        (#"{"androidApps": [{"packageName": "a.b"}, {"packageName": "a.b"}]}"#, ["/androidApps/1/packageName"]),
        (#"{"androidApps": [{"packageName": "a.b", "outsidePlay": 1}]}"#, ["/androidApps/0/outsidePlay"]),
        (#"{"androidApps": [{"packageName": "a.b", "extra": 1}]}"#, ["/androidApps/0/extra"]),
        (#"{"appleAppIds": ["ABCDE12345.com.x", "bad", "ABCDE12345.com.x"]}"#, ["/appleAppIds/1", "/appleAppIds/2"]),
        (#"{"playIntegrity": {"serviceAccount": {"type": "user"}}}"#, ["/playIntegrity/serviceAccount/type", "/playIntegrity/serviceAccount/client_email", "/playIntegrity/serviceAccount/private_key", "/playIntegrity/serviceAccount/token_uri"]),
        (#"{"playIntegrity": {"local": {"decryptionKey": "AAAA", "verificationKey": "AAAA"}}}"#, ["/playIntegrity/local/decryptionKey", "/playIntegrity/local/verificationKey"]),
        (#"{"playIntegrity": {"local": {}}}"#, ["/playIntegrity/local/decryptionKey", "/playIntegrity/local/verificationKey"]),
        (#"{"playIntegrity": {"other": 1}}"#, ["/playIntegrity/other"]),
        (#"{"id": "env_x", "colour": "red"}"#, ["/id", "/colour"]),
        (#"[]"#, [""]),
    ])
    func pointers(body: String, expected: [String]) throws {
        let json = try JSONParser.parse(body)
        do {
            _ = try EnvironmentPatch.parse(json)
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.errors.map(\.pointer) == expected)
        }
    }
}
