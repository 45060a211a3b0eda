#if !FUZZING
#if canImport(Glibc)
import Glibc
#endif
import FuzzReplay
import JSON

/// Replays the files named on the command line through the checks (no fuzzing engine), or with `--seeds DIR`
/// writes the seed corpus: minted tokens and payloads for each mode.
@main
struct PlayIntegrityFuzzReplay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--seeds", arguments.count == 2 {
            writeSeeds(to: arguments[1])
            return
        }
        // An empty input has no mode byte: libFuzzer's entry point skips it too.
        replay(arguments: arguments) { input in
            guard let mode = input.first else { return }
            FuzzScene.shared.check(mode: mode, Array(input.dropFirst()))
        }
    }

    static func writeSeeds(to directory: String) {
        let scene = FuzzScene.shared
        let genuine = #"{"requestDetails":{"requestPackageName":"com.example.app","requestHash":"abc","timestampMillis":"1789999990000"},"appIntegrity":{"appRecognitionVerdict":"PLAY_RECOGNIZED","packageName":"com.example.app","certificateSha256Digest":["q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s"],"versionCode":"42"},"deviceIntegrity":{"deviceRecognitionVerdict":["MEETS_DEVICE_INTEGRITY"],"recentDeviceActivity":{"deviceActivityLevel":"LEVEL_1"}},"accountDetails":{"appLicensingVerdict":"LICENSED"},"environmentDetails":{"playProtectVerdict":"NO_ISSUES","appAccessRiskVerdict":{"appsDetected":["KNOWN_INSTALLED"]}}}"#
        let failing = #"{"requestDetails":{"nonce":"xyz","timestampMillis":1},"appIntegrity":{"appRecognitionVerdict":"UNRECOGNIZED_VERSION","packageName":"com.example.side","certificateSha256Digest":["zc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc0"]},"deviceIntegrity":{"deviceRecognitionVerdict":["MEETS_VIRTUAL_INTEGRITY"],"recentDeviceActivity":{"deviceActivityLevel":"LEVEL_4"}},"accountDetails":{"appLicensingVerdict":"UNLICENSED"},"environmentDetails":{"playProtectVerdict":"HIGH_RISK","appAccessRiskVerdict":{"appsDetected":["UNKNOWN_CONTROLLING","UNKNOWN_CAPTURING"]}}}"#
        let jws = FuzzScene.jwsHeader
        let seeds: [(String, [UInt8])] = [
            ("token-genuine", [0] + scene.mint(jwsHeader: jws, payload: Array(genuine.utf8), jweHeader: FuzzScene.jweHeader)),
            ("token-failing", [0] + scene.mint(jwsHeader: jws, payload: Array(failing.utf8), jweHeader: FuzzScene.jweHeader)),
            ("token-dir", [0] + scene.mint(jwsHeader: jws, payload: Array(genuine.utf8), jweHeader: #"{"alg":"dir","enc":"A256GCM"}"#)),
            ("token-hs256", [0] + scene.mint(jwsHeader: #"{"alg":"HS256"}"#, payload: Array(genuine.utf8), jweHeader: FuzzScene.jweHeader)),
            ("payload-genuine", [1] + Array(genuine.utf8)),
            ("payload-failing", [1] + Array(failing.utf8)),
            ("mint-genuine", [2] + Array(genuine.utf8)),
            ("mint-failing", [2] + Array(failing.utf8)),
            ("jwe-header", [3] + Array(#"{"alg":"A256KW","enc":"A256GCM","kid":"1"}"#.utf8)),
            ("jws-header", [4] + Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8)),
            ("jws-plaintext", [5] + Array("eyJhbGciOiJFUzI1NiJ9.e30.AAAA".utf8)),
        ]
        for (name, bytes) in seeds {
            guard let file = fopen(directory + "/" + name, "wb") else { continue }
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
        }
        print("wrote \(seeds.count) seeds to \(directory)")
    }
}
#endif
