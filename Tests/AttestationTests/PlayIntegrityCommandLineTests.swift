import Attestation
import AttestationTesting
import ChildProcess
import Crypto
import JSON
import Testing

/// `gatehouse play-integrity decode` as an operator runs it: token file or standard input, JSON out, exit status.
@Suite(.serialized) struct PlayIntegrityCommandLineTests {
    struct Run {
        var status: Int32
        var output: JSON?
        var error: String
        var reasons: [String]? { output?["verdict"]?["reasons"]?.array?.compactMap(\.string) }
    }

    static func run(_ arguments: [String], input: [UInt8] = []) throws -> Run {
        let run = try CommandRun(try CommandRun.gatehouse(), ["play-integrity"] + arguments, input: input)
        return Run(status: run.status, output: try? JSONParser.parse(run.output), error: run.error)
    }

    /// A token for `scene`'s payload, written to a file with a trailing line break, and the common arguments.
    static func setUp(_ scene: PlayIntegrityScene) throws -> (String, [String]) {
        let token = try scene.minter.token(scene.payload.json)
        let path = try CommandLineTests.temporaryFile(Array((token + "\n").utf8))
        let arguments = ["decode", "--token", path, "--decryption-key", scene.minter.decryptionKeyBase64,
                         "--verification-key", scene.minter.verificationKeyBase64, "--request-hash", PlayIntegrityScene.requestHash,
                         "--at", "2026-09-21T14:13:20Z"]
        return (token, arguments)
    }

    /// `arguments` with the token's path replaced by `token` (only it: a base64 key may start with "/" too).
    static func tokenFrom(_ token: String, _ arguments: [String]) -> [String] {
        var replaced = arguments
        if let flag = replaced.firstIndex(of: "--token"), flag + 1 < replaced.count { replaced[flag + 1] = token }
        return replaced
    }

    @Test func decodesAndVerifiesAGenuineToken() throws {
        let scene = try PlayIntegrityScene()
        let (token, arguments) = try Self.setUp(scene)
        let run = try Self.run(arguments + ["--package", PlayIntegrityScene.packageName, "--digest", Hex.encode(scene.certificate, separator: ":")])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output?["verdict"] == ["status": "verified", "reasons": []])
        #expect(run.output?["payload"] == scene.payload.json)
        #expect(run.output?["observed"]?["packageName"] == .string(PlayIntegrityScene.packageName))
        #expect(run.output?["observed"]?["timestamp"] == "2026-09-21T14:13:15Z")
        // From standard input, base64-encoded, and with the token's own package and certificate standing in.
        let fromInput = try Self.run(Self.tokenFrom("-", arguments), input: Array(Base64.encode(Array(token.utf8)).utf8))
        #expect(fromInput.status == 0, "\(fromInput.error)")
    }

    @Test func judgesUnderThePolicyGivenAndTheEnvironmentsKind() throws {
        var scene = try PlayIntegrityScene()
        scene.payload.isTestingResponse = true
        let (_, arguments) = try Self.setUp(scene)
        // Development by default: a tester's response passes; production refuses it.
        #expect(try Self.run(arguments).status == 0)
        let production = try Self.run(arguments + ["--environment-kind", "production"])
        #expect(production.reasons == ["testingResponse"])
        // A strong policy, as text and from a file: the device-integrity phone is refused, and the dialog is named.
        let strong = try Self.run(arguments + ["--policy", #"{"deviceIntegrity": "strong"}"#])
        #expect(strong.status == 1)
        #expect(strong.reasons == ["strongIntegrityNotMet"])
        #expect(strong.output?["remediation"] == .object([.init("dialog", .string("GET_STRONG_INTEGRITY")), .init("code", .int(5))]))
        let file = try CommandLineTests.temporaryFile(Array(#"{"minimumVersionCode": {"com.example.app": 100}}"#.utf8))
        #expect(try Self.run(arguments + ["--policy", "@" + file, "--package", "com.example.app"]).reasons == ["versionCode:42"])
        let bad = try Self.run(arguments + ["--policy", #"{"deviceIntegrity": "perfect"}"#])
        #expect(bad.status == 2)
        #expect(bad.error.contains("--policy: /deviceIntegrity must be basic, device or strong"), "\(bad.error)")
    }

    @Test func judgesWhatTheFlagsRegister() throws {
        var scene = try PlayIntegrityScene()
        scene.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        scene.payload.appLicensingVerdict = "UNLICENSED"
        let (_, arguments) = try Self.setUp(scene)
        let digest = ["--digest", Base64.encode(scene.certificate)]
        let inPlay = try Self.run(arguments + digest)
        #expect(inPlay.status == 1)
        #expect(inPlay.reasons == ["appVerdict:UNRECOGNIZED_VERSION", "unlicensed"])
        #expect(try Self.run(arguments + digest + ["--outside-play"]).status == 0)
        let otherCertificate = try Self.run(arguments + ["--digest", String(repeating: "ab", count: 32), "--outside-play"])
        #expect(otherCertificate.reasons == ["certificateMismatch", "appVerdict:UNRECOGNIZED_VERSION", "unlicensed"])
        let otherPackage = try Self.run(arguments + ["--package", "com.example.other"])
        #expect(otherPackage.reasons?.first == "packageNotRegistered")
        let late = try Self.run(arguments.map { $0.hasPrefix("2026-") ? "2026-09-21T15:00:00Z" : $0 } + digest + ["--outside-play"])
        #expect(late.reasons == ["staleVerdict"])
    }

    @Test func judgesUnreadableTokensAsForged() throws {
        let scene = try PlayIntegrityScene()
        let (_, arguments) = try Self.setUp(scene)
        let garbage = try Self.run(Self.tokenFrom("-", arguments), input: Array("garbage\n".utf8))
        #expect(garbage.status == 1)
        #expect(garbage.output?["verdict"] == ["status": "forged", "reasons": ["decryptionFailed"]])
        #expect(garbage.output?["payload"] == .null)
        let otherKey = try PlayIntegrityMinter.random().verificationKeyBase64
        let wrongKey = try Self.run(arguments.map { $0 == scene.minter.verificationKeyBase64 ? otherKey : $0 })
        #expect(wrongKey.reasons == ["signatureInvalid"])
    }

    @Test func wrongUsageExitsTwoWithAMessage() throws {
        let scene = try PlayIntegrityScene()
        let (_, arguments) = try Self.setUp(scene)
        let cases: [[String]] = [
            [], ["encode"], Array(arguments.prefix(7)), arguments + ["--digest", "00:11"], arguments + ["--bogus"],
            arguments.map { $0 == scene.minter.decryptionKeyBase64 ? "AAAA" : $0 }, arguments + ["--at", "yesterday"],
            Self.tokenFrom("/nonexistent/token", arguments), arguments + ["--request-hash", "again"],
        ]
        for arguments in cases {
            let run = try Self.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.output == nil)
        }
        let keyError = try Self.run(arguments.map { $0 == scene.minter.decryptionKeyBase64 ? "AAAA" : $0 })
        #expect(keyError.error.contains("--decryption-key"))
        #expect(!keyError.error.contains(scene.minter.verificationKeyBase64))
    }
}
