import Crypto
import Gatehouse
import JSON

/// Reads the body of `POST /api/v4/assess` (docs/device-api.md "Assessment") into an `AssessRequest`, naming every field
/// that cannot be read by JSON pointer (`/request/nonce`, `/signed`, `/signed/app/id` for a member of the object the
/// `signed` text holds). Shapes only: the judgement is the service's.
struct AssessEnvelope {
    /// The longest `signed` text read, in UTF-8 bytes.
    static let maxSignedBytes = 32 * 1024
    /// Nonce length bounds, in decoded bytes.
    static let nonceBytes = 16...64
    /// Longest `signed.app.id`, `signed.device.id`.
    static let maxIDLength = 255
    /// Longest Play Integrity token read (tokens are a few kilobytes).
    static let maxTokenLength = 16 * 1024
    /// Longest debug token read (`dt_` and 43 characters; room for a pasting mistake to be judged, not refused).
    static let maxDebugTokenLength = 200

    let apiKey: String
    let request: AssessRequest

    /// The envelope of `body`, or a 400 problem listing every field that cannot be read.
    /// - Throws: `Problem` 400.
    init(_ body: JSON) throws {
        var errors = FieldErrors()
        let apiKey = DeviceBody.string(body["apiKey"], "/apiKey", max: 200, what: "the environment's public key (pk_…)", &errors)
        var platform: AssessRequest.Platform?
        switch body["platform"] {
        case .string(let text)? where AssessRequest.Platform(rawValue: text) != nil: platform = AssessRequest.Platform(rawValue: text)
        case nil, .null?: errors.add("/platform", "is required: \"android\" or \"ios\"")
        default: errors.add("/platform", "must be \"android\" or \"ios\"")
        }
        let envelope = Self.requestFields(body["request"], &errors)
        let signed = Self.signedFields(body["signed"], platform: platform, &errors)
        let proof = Self.proof(body["attestation"], &errors)
        if !errors.isEmpty {
            throw Self.problem(errors.errors)
        }
        guard let apiKey, let platform, let envelope, let signed else { throw Self.problem([FieldError("", "must be an assessment envelope")]) }
        self.apiKey = apiKey
        request = AssessRequest(platform: platform, timestamp: envelope.timestamp, nonce: envelope.nonce, signature: envelope.signature,
                                signedText: signed.text, appID: signed.appID, signatureDigest: signed.digest, deviceID: signed.deviceID,
                                receiptKey: signed.receiptKey, proof: proof)
    }

    /// `{timestamp, nonce, signature}`.
    static func requestFields(_ value: JSON?, _ errors: inout FieldErrors) -> (timestamp: Int64, nonce: String, signature: [UInt8])? {
        guard let value, !value.isNull else {
            errors.add("/request", "is required: {timestamp, nonce, signature}")
            return nil
        }
        guard value.members != nil else {
            errors.add("/request", "must be an object {timestamp, nonce, signature}")
            return nil
        }
        var timestamp: Int64?
        if let number = value["timestamp"]?.integer, number >= 0 {
            timestamp = Int64(number)
        } else {
            errors.add("/request/timestamp", value["timestamp"] == nil ? "is required: unix milliseconds" : "must be unix milliseconds, a whole non-negative number")
        }
        var nonce: String?
        if let text = value["nonce"]?.string, isBase64URL(text), let bytes = Base64.decode(text), nonceBytes.contains(bytes.count) {
            nonce = text
        } else {
            errors.add("/request/nonce", value["nonce"] == nil ? "is required: base64url of 16 to 64 random bytes"
                                                               : "must be base64url (no padding) of 16 to 64 random bytes")
        }
        var signature: [UInt8]?
        if let text = value["signature"]?.string, isBase64URL(text), let bytes = Base64.decode(text), bytes.count == HMACSHA256.macLength {
            signature = bytes
        } else {
            errors.add("/request/signature", value["signature"] == nil ? "is required: base64url of the HMAC-SHA256 of the canonical string"
                                                                       : "must be base64url of a 32-byte HMAC-SHA256")
        }
        guard let timestamp, let nonce, let signature else { return nil }
        return (timestamp, nonce, signature)
    }

    /// The `signed` text and what is read of the object it holds.
    static func signedFields(_ value: JSON?, platform: AssessRequest.Platform?, _ errors: inout FieldErrors)
        -> (text: String, appID: String, digest: [UInt8]?, deviceID: String?, receiptKey: ECPublicKey?)? {
        guard let value, !value.isNull else {
            errors.add("/signed", "is required: a JSON object as text")
            return nil
        }
        guard let text = value.string else {
            errors.add("/signed", "must be a string holding a JSON object (the object as text, hashed exactly as sent)")
            return nil
        }
        guard text.utf8.count <= maxSignedBytes else {
            errors.add("/signed", "must be at most \(maxSignedBytes) bytes; this one has \(text.utf8.count)")
            return nil
        }
        guard let object = try? JSONParser.parse(text), object.members != nil else {
            errors.add("/signed", "must be a string holding a JSON object; this text is not one")
            return nil
        }
        let before = errors.errors.count
        var appID: String?
        if let app = object["app"], app.members != nil {
            appID = DeviceBody.string(app["id"], "/signed/app/id", max: maxIDLength, what: "the package name or bundle id", &errors)
        } else {
            errors.add("/signed/app", "is required: {\"id\": package name or bundle id}")
        }
        var digest: [UInt8]?
        switch object["app"]?["signatureDigest"] {
        case nil, .null?: digest = nil
        case .string(let text)?: digest = CertificateDigest.parse(text)
        default: errors.add("/signed/app/signatureDigest", "must be the signing certificate's SHA-256 as hex")
        }
        if platform == .android && object["app"]?["signatureDigest"] == nil && object["app"]?.members != nil {
            errors.add("/signed/app/signatureDigest", "is required on Android: the signing certificate's SHA-256 as hex")
        }
        var deviceID: String?
        switch object["device"] {
        case nil, .null?: deviceID = nil
        case .object?: deviceID = optionalString(object["device"]?["id"], "/signed/device/id", max: maxIDLength, &errors)
        default: errors.add("/signed/device", "must be an object {\"id\": …}")
        }
        var receiptKey: ECPublicKey?
        switch object["receiptKey"] {
        case nil, .null?: receiptKey = nil
        case .string(let text)?:
            if let der = Base64.decode(text), let key = try? ECPublicKey(derSubjectPublicKeyInfo: der) {
                receiptKey = key
            } else {
                errors.add("/signed/receiptKey", "must be base64 of a P-256 public key as DER SubjectPublicKeyInfo")
            }
        default: errors.add("/signed/receiptKey", "must be base64 of a P-256 public key as DER SubjectPublicKeyInfo")
        }
        guard errors.errors.count == before, let appID else { return nil }
        return (text, appID, digest, deviceID, receiptKey)
    }

    /// The attestation object, if any: `{"provider": "play-integrity", "token"}`, `{"provider": "app-attest",
    /// "keyId", "token"}`, `{"provider": "key-attestation", "keyId", "token"}` or `{"provider": "debug", "token"}`.
    static func proof(_ value: JSON?, _ errors: inout FieldErrors) -> AssessRequest.Proof? {
        guard let value, !value.isNull else { return nil }
        guard value.members != nil else {
            errors.add("/attestation", "must be an object {provider, token} or null")
            return nil
        }
        switch value["provider"]?.string {
        case "play-integrity":
            let token = DeviceBody.string(value["token"], "/attestation/token", max: maxTokenLength, what: "the integrity token", &errors)
            return token.map { .playIntegrity(token: $0) }
        case "app-attest":
            var keyID: [UInt8]?
            switch value["keyId"] {
            case nil, .null?: keyID = nil
            case .string(let text)?:
                if text.isEmpty { keyID = nil } else if let bytes = Base64.decode(text) { keyID = bytes } else {
                    errors.add("/attestation/keyId", "must be base64 of the key id")
                }
            default: errors.add("/attestation/keyId", "must be base64 of the key id")
            }
            guard let text = value["token"]?.string, !text.isEmpty, let assertion = Base64.decode(text) else {
                errors.add("/attestation/token", "must be base64 of the CBOR assertion {signature, authenticatorData}")
                return nil
            }
            return .appAttest(keyID: keyID, assertion: assertion)
        case "debug":
            let token = DeviceBody.string(value["token"], "/attestation/token", max: maxDebugTokenLength, what: "a debug token (dt_…)", &errors)
            return token.map { .debug(token: $0) }
        case KeyAttestationService.provider:
            var keyID: [UInt8]?
            if let text = value["keyId"]?.string, text.utf8.count == 43, isBase64URL(text), let bytes = Base64.decode(text), bytes.count == 32 {
                keyID = bytes
            } else {
                errors.add("/attestation/keyId", "must be the key id the registration answered (base64url of 32 bytes)")
            }
            var signature: [UInt8]?
            if let text = value["token"]?.string, !text.isEmpty, text.utf8.count <= 200, let bytes = Base64.decode(text) {
                signature = bytes
            } else {
                errors.add("/attestation/token", "must be base64 of the DER ECDSA-SHA256 signature of the canonical string by the attested key")
            }
            guard let keyID, let signature else { return nil }
            return .keyAttestation(keyID: keyID, signature: signature)
        default:
            errors.add("/attestation/provider", "must be \"play-integrity\", \"app-attest\", \"key-attestation\" or \"debug\"")
            return nil
        }
    }

    /// An optional string of at most `max` bytes (absent or null: nil).
    static func optionalString(_ value: JSON?, _ pointer: String, max: Int, _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.string, text.utf8.count <= max else {
            errors.add(pointer, "must be a string of at most \(max) bytes")
            return nil
        }
        return text
    }

    /// Only the base64url alphabet, no padding.
    static func isBase64URL(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    /// A 400 naming each field by pointer.
    static func problem(_ errors: [FieldError]) -> Problem {
        Problem.malformedRequest(errors)
    }
}
