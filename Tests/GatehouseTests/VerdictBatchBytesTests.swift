import Gatehouse
import JSON
import Testing

/// The byte reader of ingest batches (`VerdictBatch.parse(body:now:)`) against the general path (`JSONParser` then
/// `VerdictBatch.parse(_:now:)`): where it answers, it must give exactly the general path's verdicts; where it does
/// not, the general path decides (and reports the errors).
@Suite("TrafficVerdict batches read from bytes")
struct VerdictBatchBytesTests {
    static let now: Int64 = 1_795_000_000
    static let at = Timestamp.format(now - 600)
    static let hexDigest = String(repeating: "ab", count: 32)

    /// The general path's verdicts, or nil when it refuses the body.
    static func general(_ body: String) -> [TrafficVerdict]? {
        guard let json = try? JSONParser.parse(body) else { return nil }
        return try? VerdictBatch.parse(json, now: now)
    }

    static func fast(_ body: String) -> [TrafficVerdict]? {
        VerdictBatch.parse(body: Array(body.utf8), now: now)
    }

    static func item(_ members: String) -> String { "{\"verdicts\": [" + members + "]}" }

    static let android = #"{"at": "\#(at)", "platform": "android", "provider": "play-integrity", "status": "rejected", "reasons": ["certificateMismatch", "unlicensed", "certificateMismatch"], "observed": {"packageName": "com.example.app", "certificateDigest": "\#(hexDigest)", "appRecognitionVerdict": "PLAY_RECOGNIZED", "appLicensingVerdict": "LICENSED", "deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY", "MEETS_BASIC_INTEGRITY"]}}"#
    static let ios = #"{"at":"\#(at)","platform":"ios","provider":"app-attest","status":"verified","reasons":[],"observed":{"appId":"ABCDE12345.com.example.app","attestationEnvironment":"production"}}"#

    /// Bodies the reader takes: its verdicts are the general path's.
    @Test(arguments: [
        item(android),
        item(ios),
        item(android + "," + ios + "," + android),
        "\n {\t\"verdicts\" :\r\n[ " + ios + " ] }\n",
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "forged"}"#),
        item(#"{"status": "forged", "reasons": null, "observed": null, "provider": "app-attest", "platform": "ios", "at": "2026-11-18T07:46:40+02:00"}"#),
        item(#"{"at": "\#(at)", "platform": "android", "provider": "play-integrity", "status": "rejected", "reasons": ["someNewReason"], "observed": {"certificateDigest": " q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s=", "deviceRecognitionVerdict": []}}"#),
        item(#"{"at": "\#(at)", "platform": "android", "provider": "play-integrity", "status": "verified", "observed": {"deviceRecognitionVerdict": ["", "X"]}}"#),
    ])
    func readerAgreesWithTheGeneralPath(_ body: String) throws {
        let general = try #require(Self.general(body))
        #expect(Self.fast(body) == general)
    }

    /// Bodies the reader leaves to the general path (which accepts some and refuses others).
    @Test(arguments: [
        "", "{}", "[]", item(""), "{\"verdicts\": []}", "{\"verdicts\": [" + ios + "], \"more\": 1}",
        item(ios) + "x", item(ios + ","),
        item(#"{"at": "\#(at)", "at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified"}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "extra": true}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "reasons": ["caf\u00e9"]}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "reasons": ["café"]}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "reasons": [""]}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "reasons": ["\#(String(repeating: "r", count: 101))"]}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "reasons": [\#((0..<21).map { "\"r\($0)\"" }.joined(separator: ","))]}"#),
        item(#"{"at": "\#(Timestamp.format(now - 9 * 86_400))", "platform": "ios", "provider": "app-attest", "status": "verified"}"#),
        item(#"{"at": "\#(Timestamp.format(now + 301))", "platform": "ios", "provider": "app-attest", "status": "verified"}"#),
        item(#"{"at": "yesterday", "platform": "ios", "provider": "app-attest", "status": "verified"}"#),
        item(#"{"at": "\#(at)", "platform": "windows", "provider": "app-attest", "status": "verified"}"#),
        item(#"{"at": "\#(at)", "provider": "app-attest", "status": "verified"}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "observed": {"appId": "nope"}}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "observed": {"appId": "ABCDE12345.a", "appId": "ABCDE12345.b"}}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "observed": {"certificateDigest": "abcd"}}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "observed": {"packageName": ""}}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "observed": {"other": "x"}}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "observed": {"deviceRecognitionVerdict": [1]}}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verified", "observed": []}"#),
        item(#"{"at": "\#(at)", "platform": "ios", "provider": "app-attest", "status": "verif\u0069ed"}"#),
        item(Array(repeating: ios, count: 1001).joined(separator: ",")),
    ])
    func readerLeavesTheRestToTheGeneralPath(_ body: String) {
        #expect(Self.fast(body) == nil)
    }

    /// Every body the reader takes, the general path takes with the same verdicts: checked on a batch damaged at a
    /// random byte, many times (a deterministic generator, so a failure repeats).
    @Test func damagedBatchesNeverDisagree() {
        let body = Array(Self.item([Self.android, Self.ios, Self.android].joined(separator: ", ")).utf8)
        let alphabet = Array("\"\\,:[]{} \t0123456789abcdefABCDEF-+.:TZnul/é".utf8)
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var taken = 0
        for _ in 0..<3000 {
            var damaged = body
            for _ in 0..<(1 + next(2)) {
                let i = next(damaged.count)
                switch next(3) {
                case 0: damaged[i] = alphabet[next(alphabet.count)]
                case 1: damaged.remove(at: i)
                default: damaged.insert(alphabet[next(alphabet.count)], at: i)
                }
            }
            let text = String(decoding: damaged, as: UTF8.self)
            guard let fast = VerdictBatch.parse(body: damaged, now: Self.now) else { continue }
            taken += 1
            #expect(fast == Self.general(text), "\(text)")
        }
        #expect(taken > 0)  // some damage leaves a valid batch (whitespace, a reason's letter…)
    }
}
