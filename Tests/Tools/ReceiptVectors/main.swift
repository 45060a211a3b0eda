import Crypto
import Foundation
import GatehouseReceipts
import JSON

// Writes the receipt conformance vectors (`make receipt-vectors`): receipts signed by the server's own signer
// (`ReceiptSigner`), hand-made malformed ones, and the requests, proofs, times and policies to check them with, each
// with the answer docs/device-api.md "Receipts" gives. The expected answers are written here by hand, per case, and this
// tool refuses to write the file unless `ReceiptVerifier` gives each of them: GatehouseReceipts' tests, the Python
// library's and the Node library's all read the file (Tests/Fixtures/receipts/conformance.json), so a difference is a
// failing test in the language that differs.
//
// Usage: ReceiptVectors OUTPUT.json

/// One case: what to check and what the answer must be.
struct Case {
    var name: String
    var jwks: JWKS
    var environment: String
    var token: String
    var method = "GET"
    var pathAndQuery = "/api/orders?page=2"
    var proof: String?
    var nowMilliseconds: Int64
    var policy: ReceiptPolicy?
    var reasons: [ReceiptReason]
    /// Whether the signature verifies and the claims read (then the answer carries them).
    var hasClaims: Bool
}

func b64(_ bytes: [UInt8]) -> String { Base64.encode(bytes, alphabet: .urlSafe, padded: false) }

let environment = "env_conformance0000"
let now: Int64 = 1_796_000_000_000  // 2026-11-30T00:53:20Z, in unix milliseconds
let nowSeconds = now / 1000
let signingKey = try ECPrivateKey.generate()
let otherSigningKey = try ECPrivateKey.generate()
let signer = ReceiptSigner(privateKey: signingKey, kid: "kid-current")
let retiredSigner = ReceiptSigner(privateKey: otherSigningKey, kid: "kid-retired")
let strangerSigner = ReceiptSigner(privateKey: try ECPrivateKey.generate(), kid: "kid-unknown")
let jwks = JWKS(keys: [signer.publicJWK, retiredSigner.publicJWK])
let phone = try ECPrivateKey.generate()
let otherPhone = try ECPrivateKey.generate()
let verified = ReceiptAttestation(provider: "play-integrity", status: "verified")

func claims(issuedAt: Int64 = nowSeconds - 60, environment env: String = environment, bound: Bool = false, action: ReceiptAction = .allow,
            attestation: ReceiptAttestation? = verified, platform: String? = "android") -> ReceiptClaims {
    ReceiptClaims(environment: env, subject: "req_conformance", issuedAt: issuedAt, platform: platform, action: action, attestation: attestation,
                  confirmationKey: bound ? PublicJWK(publicKey: phone.publicKey) : nil)
}

func token(_ claims: ReceiptClaims, signer: ReceiptSigner = signer) throws -> String { try signer.sign(claims) }

/// A token with any header and payload text, signed by `key` (raw r ‖ s) unless `signature` is given.
func crafted(header: String, payload: String, key: ECPrivateKey = signingKey, signature: [UInt8]? = nil) throws -> String {
    let input = b64(Array(header.utf8)) + "." + b64(Array(payload.utf8))
    return input + "." + b64(try signature ?? key.rawSignature(for: Array(input.utf8)))
}

let header = #"{"alg":"ES256","kid":"kid-current","typ":"gatehouse-receipt+jwt"}"#

func proof(_ method: String = "GET", _ path: String = "/api/orders?page=2", age: Int64 = 1000, key: ECPrivateKey = phone, der: Bool = false) throws -> String {
    let t = now - age
    let message = RequestProof.message(timestamp: t, method: method, pathAndQuery: path)
    return "t=\(t),s=" + b64(der ? try key.signature(for: message) : try key.rawSignature(for: message))
}

let unbound = try token(claims())
let bound = try token(claims(bound: true))
nonisolated(unsafe) var cases: [Case] = []  // top-level code: one thread
func add(_ name: String, _ token: String, proof: String? = nil, method: String = "GET", path: String = "/api/orders?page=2", at: Int64 = now,
         environment env: String = environment, policy: ReceiptPolicy? = nil, keys: JWKS = jwks, _ reasons: [ReceiptReason], claims: Bool = true) {
    cases.append(Case(name: name, jwks: keys, environment: env, token: token, method: method, pathAndQuery: path, proof: proof, nowMilliseconds: at,
                      policy: policy, reasons: reasons, hasClaims: claims))
}

// Valid.
add("valid unbound receipt", unbound, [])
add("valid unbound receipt: a proof sent along is ignored", unbound, proof: try proof(key: otherPhone), [])
add("valid bound receipt, raw r||s proof", bound, proof: try proof(), [])
add("valid bound receipt, DER proof", bound, proof: try proof(der: true), [])
add("valid receipt signed by the retired key still in the JWKS", try token(claims(), signer: retiredSigner), [])
add("valid receipt whose action is challenge (attack mode): valid, the backend acts on action", try token(claims(action: .challenge, attestation: nil)), [])
add("valid receipt without plat", try token(claims(platform: nil)), [])
add("issued 60 s ahead (within the leeway)", try token(claims(issuedAt: nowSeconds + 60)), [])
add("last second before exp", try token(claims(issuedAt: nowSeconds - 599)), [])
add("proof exactly 2 minutes old", bound, proof: try proof(age: 120_000), [])
add("proof exactly 10 s ahead", bound, proof: try proof(age: -10_000), [])
add("proof for a POST with an encoded path and query, as sent", bound, proof: try proof("POST", "/api/pay%6Dents/1?x=%2F&y"), method: "POST",
    path: "/api/pay%6Dents/1?x=%2F&y", [])

// Malformed.
add("malformed: two segments", "a.b", [.malformed], claims: false)
add("malformed: four segments", unbound + ".x", [.malformed], claims: false)
add("malformed: empty", "", [.malformed], claims: false)
add("malformed: standard base64 characters", unbound.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "+", [.malformed], claims: false)
add("malformed: padded base64url", unbound + "=", [.malformed], claims: false)
add("malformed: header not JSON", try crafted(header: "not json", payload: String(decoding: claims().json.serialized(), as: UTF8.self)), [.malformed], claims: false)
// Each bad header carries good claims, so that only the header check can refuse it.
let goodClaims = String(decoding: claims().json.serialized(), as: UTF8.self)
add("malformed: header without kid", try crafted(header: #"{"alg":"ES256","typ":"gatehouse-receipt+jwt"}"#, payload: goodClaims), [.malformed], claims: false)
add("malformed: header without typ", try crafted(header: #"{"alg":"ES256","kid":"kid-current"}"#, payload: goodClaims), [.malformed], claims: false)
add("malformed: header with another typ", try crafted(header: #"{"alg":"ES256","kid":"kid-current","typ":"JWT"}"#, payload: goodClaims), [.malformed], claims: false)
add("malformed: header with crit", try crafted(header: #"{"alg":"ES256","kid":"kid-current","typ":"gatehouse-receipt+jwt","crit":["exp"]}"#, payload: goodClaims),
    [.malformed], claims: false)
add("malformed: header with a duplicate member", try crafted(header: #"{"alg":"ES256","kid":"kid-current","kid":"kid-retired","typ":"gatehouse-receipt+jwt"}"#,
                                                          payload: goodClaims), [.malformed], claims: false)
add("malformed: header that is a JSON array", try crafted(header: #"["ES256"]"#, payload: goodClaims), [.malformed], claims: false)
add("malformed: signed claims that are not JSON", try crafted(header: header, payload: "{"), [.malformed], claims: false)
add("malformed: signed claims without exp",
    try crafted(header: header, payload: #"{"iss":"gatehouse","env":"env_conformance0000","sub":"req_conformance","iat":1795999940,"action":"allow","att":null}"#),
    [.malformed], claims: false)
add("malformed: signed claims with a duplicate env",
    try crafted(header: header, payload: #"{"iss":"gatehouse","env":"env_conformance0000","env":"env_other","sub":"req_conformance","iat":1795999940,"exp":1796000540,"action":"allow","att":null}"#),
    [.malformed], claims: false)
add("malformed: signed claims with another issuer",
    try crafted(header: header, payload: #"{"iss":"other","env":"env_conformance0000","sub":"req_conformance","iat":1795999940,"exp":1796000540,"action":"allow","att":null}"#),
    [.malformed], claims: false)
add("malformed: signed claims with an unknown action",
    try crafted(header: header, payload: #"{"iss":"gatehouse","env":"env_conformance0000","sub":"req_conformance","iat":1795999940,"exp":1796000540,"action":"block","att":null}"#),
    [.malformed], claims: false)
add("malformed: over 8192 bytes", unbound + String(repeating: "A", count: 8192), [.malformed], claims: false)

// Signatures.
add("alg HS256 is refused as a bad signature", try crafted(header: #"{"alg":"HS256","kid":"kid-current","typ":"gatehouse-receipt+jwt"}"#,
                                                            payload: String(decoding: claims().json.serialized(), as: UTF8.self)), [.signatureInvalid], claims: false)
add("alg none is refused as a bad signature", try crafted(header: #"{"alg":"none","kid":"kid-current","typ":"gatehouse-receipt+jwt"}"#,
                                                           payload: String(decoding: claims().json.serialized(), as: UTF8.self)), [.signatureInvalid], claims: false)
add("unknown kid", try token(claims(), signer: strangerSigner), [.signatureInvalid], claims: false)
add("a kid the JWKS has, signed by another key", try crafted(header: header, payload: String(decoding: claims().json.serialized(), as: UTF8.self),
                                                              key: otherSigningKey), [.signatureInvalid], claims: false)
add("a signature of 63 bytes", try crafted(header: header, payload: String(decoding: claims().json.serialized(), as: UTF8.self), signature: Array(repeating: 1, count: 63)),
    [.signatureInvalid], claims: false)
add("a DER signature on the token (JWS takes r||s only)", try crafted(header: header, payload: String(decoding: claims().json.serialized(), as: UTF8.self),
                                                                     signature: try signingKey.signature(for: Array((b64(Array(header.utf8)) + "." + b64(claims().json.serialized())).utf8)))
    , [.signatureInvalid], claims: false)
var flipped = Array(unbound.utf8)
flipped[flipped.count - 5] = flipped[flipped.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
add("a signature with one character changed", String(decoding: flipped, as: UTF8.self), [.signatureInvalid], claims: false)
add("an empty JWKS", unbound, keys: JWKS(keys: []), [.signatureInvalid], claims: false)

// Time and environment.
add("expired (at exp)", try token(claims(issuedAt: nowSeconds - 600)), [.expired])
add("expired long ago", try token(claims(issuedAt: nowSeconds - 86_400)), [.expired])
add("issued 61 s ahead (past the leeway)", try token(claims(issuedAt: nowSeconds + 61)), [.expired])
add("another environment's receipt", unbound, environment: "env_other00000000000", [.wrongEnvironment])
add("expired and another environment's: both, in order", try token(claims(issuedAt: nowSeconds - 700)), environment: "env_other00000000000", [.expired, .wrongEnvironment])

// Proofs of bound receipts.
add("bound, proof missing", bound, [.sessionProof])
add("bound, proof 2 minutes and 1 ms old", bound, proof: try proof(age: 120_001), [.sessionProof])
add("bound, proof 10.001 s ahead", bound, proof: try proof(age: -10_001), [.sessionProof])
add("bound, proof by another key", bound, proof: try proof(key: otherPhone), [.sessionProof])
add("bound, proof for another path", bound, proof: try proof("GET", "/api/orders?page=3"), [.sessionProof])
add("bound, proof for another method", bound, proof: try proof("POST"), [.sessionProof])
add("bound, proof over the decoded path (the proof covers the path as sent)", bound, proof: try proof("GET", "/api/payments/1"), path: "/api/pay%6Dents/1",
    [.sessionProof])
add("bound, proof with letters for t", bound, proof: "t=abc,s=" + b64(Array(repeating: 1, count: 64)), [.sessionProof])
add("bound, proof with a leading zero in t", bound, proof: "t=0\(now),s=" + b64(try phone.rawSignature(for: RequestProof.message(timestamp: now, method: "GET", pathAndQuery: "/api/orders?page=2"))),
    [.sessionProof])
let swapped = try proof().split(separator: ",")
add("bound, proof with s and t swapped", bound, proof: swapped[1] + "," + swapped[0], [.sessionProof])
add("bound, proof with padding", bound, proof: try proof() + "=", [.sessionProof])
add("bound and expired, proof missing: both, in order", try token(claims(issuedAt: nowSeconds - 700, bound: true)), [.expired, .sessionProof])

// Policy.
add("policy bound, receipt unbound", unbound, policy: ReceiptPolicy(requiresBound: true), [.unbound])
add("policy attested, receipt without attestation", try token(claims(attestation: nil)), policy: ReceiptPolicy(requiresVerifiedAttestation: true), [.unattested])
add("policy attested, attestation rejected", try token(claims(attestation: ReceiptAttestation(provider: "app-attest", status: "rejected"))),
    policy: ReceiptPolicy(requiresVerifiedAttestation: true), [.unattested])
add("policy bound and attested, unbound and unattested: both, in order", try token(claims(attestation: nil)), policy: .boundAndAttested, [.unbound, .unattested])
add("policy bound and attested, met", bound, proof: try proof(), policy: .boundAndAttested, [])
add("policy attested, a debug attestation does not meet it", try token(claims(attestation: ReceiptAttestation(provider: "debug", status: "verified"))),
    policy: ReceiptPolicy(requiresVerifiedAttestation: true), [.unattested])
add("policy attested with debug allowed, a debug attestation meets it", try token(claims(attestation: ReceiptAttestation(provider: "debug", status: "verified"))),
    policy: ReceiptPolicy(requiresVerifiedAttestation: true, allowsDebug: true), [])
add("every failing check after the signature, in order", try token(claims(issuedAt: nowSeconds - 700, bound: true, attestation: nil)),
    environment: "env_other00000000000", policy: ReceiptPolicy(requiresVerifiedAttestation: true), [.expired, .wrongEnvironment, .sessionProof, .unattested])

// Each case's answer must be the one written above before anything is written.
var failures: [String] = []
var written: [JSON] = []
for c in cases {
    let verifier = ReceiptVerifier(keys: c.jwks, environment: c.environment, policy: c.policy ?? ReceiptPolicy())
    let answer = verifier.verify(c.token, method: c.method, pathAndQuery: c.pathAndQuery, proof: c.proof, nowMilliseconds: c.nowMilliseconds)
    if answer.reasons != c.reasons || (answer.claims != nil) != c.hasClaims {
        failures.append("\(c.name): expected \(c.reasons.map(\.rawValue)) claims \(c.hasClaims), got \(answer.reasons.map(\.rawValue)) claims \(answer.claims != nil)")
    }
    let policy: JSON = c.policy.map { p in
        ["bound": .bool(p.requiresBound), "attestation": p.requiresVerifiedAttestation ? .string(ReceiptAttestation.verified) : .null, "debug": .bool(p.allowsDebug)]
    } ?? .null
    written.append([
        "name": .string(c.name),
        "jwks": c.jwks.json,
        "environment": .string(c.environment),
        "token": .string(c.token),
        "request": ["method": .string(c.method), "pathAndQuery": .string(c.pathAndQuery), "proof": c.proof.map { .string($0) } ?? .null],
        "nowMs": .int(c.nowMilliseconds),
        "policy": policy,
        "expected": ["valid": .bool(c.reasons.isEmpty), "reasons": .array(c.reasons.map { .string($0.rawValue) }),
                     "claims": answer.claims?.json ?? .null],
    ])
}
guard failures.isEmpty else {
    FileHandle.standardError.write(Data(("ReceiptVectors: ReceiptVerifier disagrees with the expected answers:\n" + failures.joined(separator: "\n") + "\n").utf8))
    exit(1)
}
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: ReceiptVectors OUTPUT.json\n".utf8))
    exit(2)
}
let document: JSON = [
    "description": "Receipt conformance vectors (docs/device-api.md \"Receipts\"): receipts signed by Gatehouse's ReceiptSigner and hand-made ones, with the request, proof, time (unix ms) and policy to check each with, and the answer every Gatehouse receipt library must give: valid, the reasons in order, and the claims when the signature verifies (as Gatehouse reads them: the members docs/device-api.md names, `att` null when absent, `cnf.jwk` as kty, crv, x, y). Written by `make receipt-vectors` (Tests/Tools/ReceiptVectors); read by GatehouseReceipts' tests and the Python and Node libraries' tests.",
    "cases": .array(written),
]
try Data(document.serialized()).write(to: URL(fileURLWithPath: CommandLine.arguments[1]))
print("wrote \(written.count) cases to \(CommandLine.arguments[1])")
