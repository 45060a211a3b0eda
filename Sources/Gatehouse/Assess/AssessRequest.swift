import Crypto

/// One signed request to `POST /api/v4/assess` (docs/device-api.md "Assessment"), as read from the envelope: what the
/// phone signed, the signature, and the attestation it brought. The web layer reads and checks the shapes; the
/// judgement is ``AssessService``'s.
public struct AssessRequest: Sendable {
    /// The platform the request says it comes from.
    public enum Platform: String, Sendable, CaseIterable {
        case android, ios
    }

    /// The attestation beside the request.
    public enum Proof: Sendable {
        /// A Play Integrity token whose requestHash should be the canonical string's hash.
        case playIntegrity(token: String)
        /// An App Attest assertion over the canonical string, by the key `keyID` (nil: none named).
        case appAttest(keyID: [UInt8]?, assertion: [UInt8])
        /// A debug token (`dt_…`) of the environment, in place of a platform attestation (simulators, emulators, CI).
        case debug(token: String)
        /// A DER ECDSA-SHA256 signature of the canonical string by the Android key `keyID` a key attestation stored.
        case keyAttestation(keyID: [UInt8], signature: [UInt8])

        /// The provider's wire name.
        public var provider: String {
            switch self {
            case .playIntegrity: "play-integrity"
            case .appAttest: "app-attest"
            case .debug: Provider.debug
            case .keyAttestation: KeyAttestationService.provider
            }
        }
    }

    public var platform: Platform
    /// `request.timestamp`, unix milliseconds.
    public var timestamp: Int64
    /// `request.nonce` as sent (base64url of 16–64 bytes).
    public var nonce: String
    /// `request.signature` decoded (the HMAC-SHA256 the phone computed).
    public var signature: [UInt8]
    /// `signed` exactly as received: what the canonical string hashes.
    public var signedText: String
    /// `signed.app.id`: the package name or bundle id.
    public var appID: String
    /// `signed.app.signatureDigest` decoded (Android), nil when absent or not a digest.
    public var signatureDigest: [UInt8]?
    /// `signed.device.id`, when given.
    public var deviceID: String?
    /// `signed.receiptKey` read: the phone's P-256 key to bind the receipt to.
    public var receiptKey: ECPublicKey?
    /// The attestation, if any.
    public var proof: Proof?

    /// A request with every field given.
    public init(platform: Platform, timestamp: Int64, nonce: String, signature: [UInt8], signedText: String, appID: String,
                signatureDigest: [UInt8]?, deviceID: String?, receiptKey: ECPublicKey?, proof: Proof?) {
        self.platform = platform
        self.timestamp = timestamp
        self.nonce = nonce
        self.signature = signature
        self.signedText = signedText
        self.appID = appID
        self.signatureDigest = signatureDigest
        self.deviceID = deviceID
        self.receiptKey = receiptKey
        self.proof = proof
    }

    /// The canonical string the signature and the attestation cover.
    public var canonical: String {
        CanonicalRequest.text(platform: platform.rawValue, timestamp: timestamp, nonce: nonce, signed: signedText)
    }
}
