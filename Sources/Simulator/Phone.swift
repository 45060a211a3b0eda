import Crypto
import Foundation
import GatehouseReceipts
import JSON

/// A phone played against a running Gatehouse: it builds a signed request as the SDK would, brings an attestation
/// (a Play Integrity token minted with the app's local keys, or an App Attest assertion by a key it attests with a
/// synthetic CA and registers first), sends `POST /api/v4/assess`, and reports what came back, with the receipt's
/// claims read and, when a secret key is given, checked through `POST /api/v4/receipts/verify`.
public struct Phone: Sendable {
    /// What the phone sends.
    public struct Options: Sendable {
        public var apiKey: String
        /// `signed.app.id`: the package (Android) or the bundle id (iOS).
        public var appID: String
        public var deviceID = "simulated-device"
        /// Make a P-256 key and bind the receipt to it (`signed.receiptKey`); its proof is printed.
        public var bind = true
        /// Send no attestation (what a phone without Play services or App Attest does).
        public var withoutAttestation = false
        /// Sign with this key instead of the public key (to see `signatureInvalid`).
        public var signingKey: String?
        /// Milliseconds added to the timestamp (to see `requestStale`).
        public var clockSkew: Int64 = 0
        /// The environment's secret key: the receipt is then checked with `/api/v4/receipts/verify`.
        public var secretKey: String?
        /// The API call the proof is made for.
        public var proofMethod = "GET"
        public var proofPath = "/api/orders?page=2"
        /// iOS 27's launch validation category to put in the authenticator data (attestation and assertion).
        public var validationCategory: UInt32?
        /// iOS 27's bundle version to put there.
        public var bundleVersion: String?

        /// Options for `apiKey` naming `appID`.
        public init(apiKey: String, appID: String) {
            self.apiKey = apiKey
            self.appID = appID
        }
    }

    public let http: PlainHTTP
    public let options: Options

    /// A phone talking to `http`.
    public init(http: PlainHTTP, options: Options) {
        self.http = http
        self.options = options
    }

    /// Now, unix milliseconds.
    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// An Android request: `signed.app.signatureDigest` = `digest` (hex), a token from `minter` with `verdict`
    /// (its requestHash the canonical string's hash), then the assessment.
    /// - Throws: when a key cannot be made, the token minted, or the server reached.
    public func android(minter: PlayIntegrityMinter, digest: [UInt8], verdict: SimulatedVerdict) throws -> JSON {
        let receiptKey = options.bind ? try ECPrivateKey.generate() : nil
        let envelope = try makeEnvelope(platform: "android", digest: Hex.encode(digest), receiptKey: receiptKey)
        var attestation: JSON?
        if !options.withoutAttestation {
            var payload = PlayIntegrityPayloadTemplate(packageName: options.appID, certificateDigest: digest,
                                                       requestHash: envelope.requestHash, timestampMillis: Self.nowMillis)
            verdict.apply(&payload)
            attestation = SignedEnvelope.playIntegrity(try minter.token(payload.json))
        }
        return try send(envelope, attestation: attestation, receiptKey: receiptKey, steps: [])
    }

    /// A request on `platform` that brings the debug token `token` instead of a platform attestation (what a
    /// simulator, an emulator or a CI build does): nothing is minted or registered. `digest` (hex) is the signing
    /// certificate an Android app reports.
    /// - Throws: when a key cannot be made or the server cannot be reached.
    public func debug(platform: String, token: String, digest: [UInt8]?) throws -> JSON {
        let receiptKey = options.bind ? try ECPrivateKey.generate() : nil
        let envelope = try makeEnvelope(platform: platform, digest: digest.map { Hex.encode($0) }, receiptKey: receiptKey)
        return try send(envelope, attestation: options.withoutAttestation ? nil : SignedEnvelope.debug(token), receiptKey: receiptKey, steps: [])
    }

    /// An iOS request: a challenge, a key attested for `appID` (`TEAMID.bundleId`) by `ca` and registered, then the
    /// assessment with an assertion (counter 1) over the canonical string.
    /// - Throws: when `openssl` fails, a key cannot be made, or the server cannot be reached.
    public func ios(ca: SyntheticAppAttest, teamAppID: String) throws -> JSON {
        var steps: [JSON.Member] = []
        var attestation: JSON?
        var key: SyntheticKey?
        let receiptKey = options.bind ? try ECPrivateKey.generate() : nil
        let envelope = try makeEnvelope(platform: "ios", digest: nil, receiptKey: receiptKey)
        if !options.withoutAttestation {
            let challenge = try http.post("/api/v4/attestation/challenge", ["apiKey": .string(options.apiKey)])
            steps.append(JSON.Member("challenge", .object([JSON.Member("status", .int(challenge.status)), JSON.Member("body", challenge.json ?? .null)])))
            guard let text = challenge.json?["challenge"]?.string else { return .object(steps) }
            var tweaks = SyntheticAppAttest.Tweaks()
            tweaks.authDataExtension = extensions
            let attested = try ca.attest(appId: teamAppID, clientDataHash: SHA256.hash(Array(text.utf8)), tweaks: tweaks)
            key = attested
            let registered = try http.post("/api/v4/attestation/app-attest", [
                "apiKey": .string(options.apiKey), "keyId": .string(Base64.encode(attested.keyId)), "challenge": .string(text),
                "attestation": .string(Base64.encode(attested.attestation)),
            ])
            steps.append(JSON.Member("registration", .object([JSON.Member("status", .int(registered.status)), JSON.Member("body", registered.json ?? .null)])))
        }
        if let key {
            attestation = SignedEnvelope.appAttest(keyID: key.keyId, assertion: try key.assertion(counter: 1, clientData: envelope.clientData,
                                                                                                   extensions: extensions))
        }
        return try send(envelope, attestation: attestation, receiptKey: receiptKey, steps: steps)
    }

    /// An Android phone without Play: a challenge, a key its secure hardware attests (`ca` certifying it as `device`
    /// describes, with the challenge) registered with `POST /api/v4/attestation/key-attestation`, then the
    /// assessment with the canonical string signed by that key. `signed.app.signatureDigest` is the first of the
    /// device's signing certificate digests.
    /// - Throws: when `openssl` fails, a key cannot be made, or the server cannot be reached.
    public func keyAttestation(ca: SyntheticKeyAttestation, device: SyntheticKeyAttestation.Phone) throws -> JSON {
        var steps: [JSON.Member] = []
        var attested: SyntheticKeyAttestation.Attested?
        let receiptKey = options.bind ? try ECPrivateKey.generate() : nil
        let envelope = try makeEnvelope(platform: "android", digest: device.signatureDigests.first.map { Hex.encode($0) }, receiptKey: receiptKey)
        if !options.withoutAttestation {
            let challenge = try http.post("/api/v4/attestation/challenge", ["apiKey": .string(options.apiKey)])
            steps.append(JSON.Member("challenge", .object([JSON.Member("status", .int(challenge.status)), JSON.Member("body", challenge.json ?? .null)])))
            guard let text = challenge.json?["challenge"]?.string else { return .object(steps) }
            let made = try ca.attest(challenge: Array(text.utf8), phone: device)
            attested = made
            let registered = try http.post("/api/v4/attestation/key-attestation", [
                "apiKey": .string(options.apiKey), "challenge": .string(text),
                "certificateChain": .array(made.chain.map { .string(Base64.encode($0)) }),
            ])
            steps.append(JSON.Member("registration", .object([JSON.Member("status", .int(registered.status)), JSON.Member("body", registered.json ?? .null)])))
            // As an app does: a key the server did not accept is not used (the request then brings no attestation).
            if registered.json?["verdict"]?["status"]?.string != "verified" { attested = nil }
        }
        let attestation: JSON? = try attested.map {
            ["provider": "key-attestation", "keyId": .string($0.keyID), "token": .string(Base64.encode(try $0.privateKey.signature(for: envelope.clientData)))]
        }
        return try send(envelope, attestation: attestation, receiptKey: receiptKey, steps: steps)
    }

    /// The iOS 27 extension map of the options (empty when they name neither).
    var extensions: [UInt8] {
        SyntheticAppAttest.extensions(validationCategory: options.validationCategory, bundleVersion: options.bundleVersion)
    }

    func makeEnvelope(platform: String, digest: String?, receiptKey: ECPrivateKey?) throws -> SignedEnvelope {
        let signed = SignedEnvelope.signedText(appID: options.appID, signatureDigest: digest, deviceID: options.deviceID,
                                               receiptKey: receiptKey?.publicKey)
        return try SignedEnvelope(apiKey: options.apiKey, platform: platform, signed: signed, timestamp: Self.nowMillis + options.clockSkew)
    }

    /// Sends the assessment and reports: the canonical string, the answer, the receipt's claims, a proof, and the
    /// backend's check when a secret key is given.
    func send(_ envelope: SignedEnvelope, attestation: JSON?, receiptKey: ECPrivateKey?, steps: [JSON.Member]) throws -> JSON {
        var signer = envelope
        if let signingKey = options.signingKey { signer.apiKey = signingKey }
        let response = try http.post("/api/v4/assess", envelope.json(attestation: attestation, signature: signer.signature))
        var report = steps
        report.append(JSON.Member("canonical", .string(envelope.canonical)))
        report.append(JSON.Member("assess", .object([JSON.Member("status", .int(response.status)), JSON.Member("body", response.json ?? .null)])))
        guard let token = response.json?["sessionToken"]?.string else { return .object(report) }
        report.append(JSON.Member("receipt", Self.claims(token)))
        var proof: String?
        if let receiptKey {
            let made = try RequestProof.sign(method: options.proofMethod, pathAndQuery: options.proofPath, timestamp: Self.nowMillis, key: receiptKey)
            proof = made.header
            report.append(JSON.Member("proof", .object([JSON.Member("method", .string(options.proofMethod)),
                                                        JSON.Member("pathAndQuery", .string(options.proofPath)), JSON.Member("header", .string(made.header))])))
        }
        if let secretKey = options.secretKey {
            let verified = try http.post("/api/v4/receipts/verify", [
                "token": .string(token), "method": .string(options.proofMethod), "pathAndQuery": .string(options.proofPath), "proof": .optional(proof),
            ], headers: [("Authorization", "Bearer " + secretKey)])
            report.append(JSON.Member("verify", .object([JSON.Member("status", .int(verified.status)), JSON.Member("body", verified.json ?? .null)])))
        }
        return .object(report)
    }

    /// The receipt's header and claims as JSON (read, not verified: the backend's check is `/receipts/verify`).
    static func claims(_ token: String) -> JSON {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64.decode(String(parts[0])), let payload = Base64.decode(String(parts[1])),
              let headerJSON = try? JSONParser.parse(header), let claims = try? JSONParser.parse(payload)
        else { return .null }
        return ["header": headerJSON, "claims": claims]
    }
}
