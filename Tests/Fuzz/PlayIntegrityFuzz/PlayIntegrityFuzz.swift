// libFuzzer target for the Play Integrity JOSE reader and payload evaluator. Built with `-DFUZZING` and
// `--sanitize=fuzzer` (see `make fuzz-pi`), libFuzzer supplies `main` and calls `LLVMFuzzerTestOneInput`; in a plain
// build the `main` below replays files through the same checks, or writes the seed corpus (`--seeds DIR`).
//
// The first byte picks what the rest is: 0 a token; 1 a payload judged as Google's answer; 2 a payload minted into
// a genuine token with the fixed test keys (must round-trip); 3 a JWE header and 4 a JWS header around an otherwise
// genuine token; 5 the JWS plaintext of a genuine JWE. Signatures cannot be forged by mutation, so modes 2–5 build
// the layers the fuzzer cannot reach alone.
#if canImport(Glibc)
import Glibc
#endif
import Attestation
import Crypto
import JSON

/// libFuzzer's entry point: runs every check on one input; any broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzScene.shared.check(mode: input[0], Array(input.dropFirst()))
    return 0
}

/// The fixed keys, registration and request every input is judged with.
struct FuzzScene: Sendable {
    static let shared = FuzzScene()

    /// Test keys only: a fixed decryption key and a fixed P-256 signing key.
    static let decryptionKey = [UInt8](0..<32)
    static let signingKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgpmDP2PsFpQycsGfl
        bKAvkLY47fGdMMXA4uHd/Q+icmChRANCAAQb6faaQP2TYbE4JoL4HyD2rioJNO0v
        rLwZ0R9b45FVSjqTBEYZag1ZR55OrshzgDcjTPT9I1P1ttEExqDf4FUx
        -----END PRIVATE KEY-----
        """
    static let jweHeader = #"{"alg":"A256KW","enc":"A256GCM"}"#
    static let jwsHeader = #"{"alg":"ES256"}"#
    static let now: Int64 = 1_790_000_000_000

    let signingKey: ECPrivateKey?
    let decoder: PlayIntegrityDecoder?
    let evaluator = PlayIntegrityEvaluator()
    let registration = PlayIntegrityRegistration(apps: [
        AndroidAppRegistration(packageName: "com.example.app", certificateDigests: [[UInt8](repeating: 0xAB, count: 32)]),
        AndroidAppRegistration(packageName: "com.example.side", certificateDigests: [[UInt8](repeating: 0xCD, count: 32)], outsidePlay: true),
    ])
    /// The same apps under a policy with every knob set, in production: inputs are judged under both.
    let strict: PlayIntegrityRegistration = {
        var policy = PlayIntegrityPolicy()
        policy.deviceIntegrity = .strong
        policy.allowVirtual = true
        policy.requireLicensed = false
        policy.allowUnrecognizedVersion = true
        policy.minimumVersionCode = ["com.example.app": 4200]
        policy.minimumSdkVersion = 33
        policy.maximumActivityLevel = 1
        policy.playProtect = 0
        policy.appsDetected = Set(PlayIntegrityPolicy.appsDetectedValues)
        policy.refuseUnusualAccountActivity = true
        return PlayIntegrityRegistration(apps: [
            AndroidAppRegistration(packageName: "com.example.app", certificateDigests: [[UInt8](repeating: 0xAB, count: 32)]),
        ], policy: policy, isProduction: true)
    }()
    let request = PlayIntegrityRequest(packageName: "com.example.app", requestHash: "abc")

    init() {
        signingKey = try? ECPrivateKey(pem: Self.signingKeyPEM)
        decoder = signingKey.flatMap { key in
            (try? PlayIntegrityKeys(decryptionKey: Self.decryptionKey, verificationKey: key.publicKey)).map { PlayIntegrityDecoder(keys: $0) }
        }
    }

    func check(mode: UInt8, _ bytes: [UInt8]) {
        guard let decoder else { preconditionFailure("fixed keys do not load") }
        switch mode % 6 {
        case 0:
            checkJudgement(evaluator.judge(token: bytes, decoder: decoder, registration: registration, request: request, now: Self.now, seenBefore: false))
        case 1:
            guard let payload = try? JSONParser.parse(bytes), payload.members != nil else { return }
            checkJudgement(evaluator.evaluate(payload: payload, registration: registration, request: request, now: Self.now, seenBefore: bytes.count % 2 == 0))
            checkJudgement(evaluator.evaluate(payload: payload, registration: strict, request: request, now: Self.now, seenBefore: false))
        case 2:
            let token = mint(jwsHeader: Self.jwsHeader, payload: bytes, jweHeader: Self.jweHeader)
            let decoded = try? decoder.decode(token)
            let parsed = try? JSONParser.parse(bytes)
            if let parsed, parsed.members != nil, token.count <= decoder.limits.maxTokenBytes {
                precondition(decoded == parsed, "a genuine token did not round-trip")
            } else {
                precondition(decoded == nil, "a payload that is no JSON object was accepted")
            }
            checkJudgement(evaluator.judge(token: token, decoder: decoder, registration: registration, request: request, now: Self.now, seenBefore: false))
        case 3:
            let header = String(decoding: bytes, as: UTF8.self)
            let token = mint(jwsHeader: Self.jwsHeader, payload: Array("{}".utf8), jweHeader: header)
            let accepted = (try? decoder.decode(token)) != nil
            precondition(!accepted || algorithm(of: header) == "A256KW", "a JWE without A256KW was accepted")
        case 4:
            let header = String(decoding: bytes, as: UTF8.self)
            let token = mint(jwsHeader: header, payload: Array("{}".utf8), jweHeader: Self.jweHeader)
            let accepted = (try? decoder.decode(token)) != nil
            precondition(!accepted || algorithm(of: header) == "ES256", "a JWS without ES256 was accepted")
        default:
            let token = encrypt(bytes, header: Self.jweHeader)
            do {
                _ = try decoder.decode(token)
            } catch {
                precondition(error.stage == .signature || bytes.isEmpty || token.count > decoder.limits.maxTokenBytes, "a genuine JWE failed to decrypt")
            }
        }
    }

    /// The `alg` of a header as JSON reads it (escapes decoded).
    func algorithm(of header: String) -> String? {
        (try? JSONParser.parse(header))?["alg"]?.string
    }

    /// Invariants of every judgement: verified has no reasons, reasons are unique and sane, the JSON round-trips.
    func checkJudgement(_ judgement: PlayIntegrityJudgement) {
        let verdict = judgement.verdict
        precondition(verdict.isVerified == verdict.reasons.isEmpty, "verified with reasons, or reasons without a status")
        precondition(Set(verdict.reasons).count == verdict.reasons.count, "a repeated reason")
        precondition((judgement.payload == nil) == (judgement.decodeError != nil), "payload and decode error disagree")
        for reason in verdict.reasons {
            precondition(reason.utf8.count <= 96 && reason.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a reason code with odd bytes")
        }
        // A dialog only for a rejected verdict, never for a forged, stale or replayed one.
        if judgement.remediation != nil {
            precondition(verdict.status == .rejected && !verdict.reasons.contains("staleVerdict") && !verdict.reasons.contains("verdictReplayed"),
                         "a dialog for a verdict no dialog fixes")
        }
        let json = judgement.json
        precondition((try? JSONParser.parse(json.serialized())) == json, "the judgement's JSON does not round-trip")
    }

    /// A token with the fixed keys, a fixed content key and IV (deterministic but for the ECDSA nonce).
    func mint(jwsHeader: String, payload: [UInt8], jweHeader: String) -> [UInt8] {
        let input = base64URL(Array(jwsHeader.utf8)) + "." + base64URL(payload)
        let signature = (try? signingKey?.signature(for: Array(input.utf8), format: .raw)) ?? nil
        return encrypt(Array((input + "." + base64URL(signature ?? [])).utf8), header: jweHeader)
    }

    func encrypt(_ plaintext: [UInt8], header: String) -> [UInt8] {
        let contentKey = [UInt8](repeating: 0x42, count: 32)
        let iv = [UInt8](repeating: 0x24, count: 12)
        let protected = base64URL(Array(header.utf8))
        guard let wrapped = try? AESKeyWrap.wrap(contentKey, key: Self.decryptionKey),
              let (ciphertext, tag) = try? AES256GCM.encrypt(plaintext, key: contentKey, iv: iv, associatedData: Array(protected.utf8))
        else { preconditionFailure("encryption with fixed keys failed") }
        return Array([protected, base64URL(wrapped), base64URL(iv), base64URL(ciphertext), base64URL(tag)].joined(separator: ".").utf8)
    }

    func base64URL(_ bytes: [UInt8]) -> String { Base64.encode(bytes, alphabet: .urlSafe, padded: false) }
}
