@testable import Gatehouse
import JSON
import Testing

/// Raw verdict rows keep reasons and observed values as JSON text; the writers that skip the JSON tree must write
/// exactly what the tree's serialization writes.
@Suite("Raw verdict row text")
struct VerdictRowsTests {
    @Test(arguments: [
        [], ["certificateMismatch"], ["a", "b", "c"], ["q\"b\\n\nr\t<>&", "é🙂", "\u{1}\u{7F}"],
    ])
    func reasonsTextIsTheJSONArray(_ reasons: [String]) {
        var buffer: [UInt8] = [0x41]  // leftovers of an earlier row must not leak
        #expect(Verdicts.reasonsText(reasons, buffer: &buffer) == JSON.array(reasons.map { .string($0) }).text)
    }

    @Test(arguments: [
        [:],
        ["packageName": "com.example.app", "certificateDigest": "AB:CD", "appRecognitionVerdict": "PLAY_RECOGNIZED", "appLicensingVerdict": "LICENSED"],
        ["appId": "ABCDE12345.com.example.app", "attestationEnvironment": "production", "deviceRecognitionVerdict": "A,B"],
        ["zeta": "1", "Alpha": "q\"b\\<", "alpha": "é", "": "\u{1}"],
    ] as [[String: String]])
    func observedTextIsTheSortedJSONObject(_ observed: [String: String]) {
        var buffer: [UInt8] = Array("leftover".utf8)
        let expected = JSON.object(observed.sorted { $0.key < $1.key }.map { .init($0.key, .string($0.value)) }).text
        #expect(Verdicts.observedText(observed, buffer: &buffer) == expected)
    }
}
