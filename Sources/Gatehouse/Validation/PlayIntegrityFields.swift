import Foundation
import Crypto
import JSON

/// Checks of `playIntegrity.serviceAccount` and `playIntegrity.local`. Messages never repeat the secret values.
public enum PlayIntegrityFields {
    /// A Google service-account JSON key: `type` "service_account", `client_email`, `private_key` (a PEM private key
    /// that parses) and `token_uri`, one that `tokenEndpoints` allows.
    public static func serviceAccount(_ value: JSON, at pointer: String, tokenEndpoints: TokenEndpoints,
                                      errors: inout FieldErrors) -> ServiceAccountKey? {
        guard value.members != nil else {
            errors.add(pointer, "must be the service account's JSON key object (as downloaded from Google Cloud), or null to remove it")
            return nil
        }
        let before = errors.errors.count
        if value["type"]?.string != "service_account" {
            errors.add(Pointer.join(pointer, "type"), "must be \"service_account\": paste the JSON key of a service account")
        }
        let email = value["client_email"]?.string
        if email == nil || !(email ?? "").contains("@") {
            errors.add(Pointer.join(pointer, "client_email"), "must be the service account's e-mail address")
        }
        if let pem = value["private_key"]?.string {
            if (try? PrivateKeyPEM.validate(pem)) == nil {
                errors.add(Pointer.join(pointer, "private_key"), "must be a PEM private key (-----BEGIN PRIVATE KEY-----…) that parses; download a new JSON key if this one was edited")
            }
        } else {
            errors.add(Pointer.join(pointer, "private_key"), "is required: the PEM private key of the JSON key")
        }
        if !(value["token_uri"]?.string.map(tokenEndpoints.allows) ?? false) {
            errors.add(Pointer.join(pointer, "token_uri"), tokenEndpoints.requirement)
        }
        guard errors.errors.count == before, let email else { return nil }
        return ServiceAccountKey(document: value, clientEmail: email, projectID: value["project_id"]?.string)
    }

    /// Play Console's response keys: `decryptionKey` (base64 of 32 bytes, AES-256) and `verificationKey`
    /// (base64 DER of an EC P-256 SubjectPublicKeyInfo).
    public static func local(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> LocalDecodingKeys? {
        guard let members = value.members else {
            errors.add(pointer, "must be an object with decryptionKey and verificationKey, or null to remove them")
            return nil
        }
        let before = errors.errors.count
        var decryption: [UInt8]?
        var verification: [UInt8]?
        for member in members {
            let at = Pointer.join(pointer, member.key)
            switch member.key {
            case "decryptionKey":
                decryption = decryptionKey(member.value.string, at: at, errors: &errors)
            case "verificationKey":
                verification = verificationKey(member.value.string, at: at, errors: &errors)
            default:
                errors.add(at, "is not a local key (expected decryptionKey and verificationKey)")
            }
        }
        if value["decryptionKey"] == nil { errors.add(Pointer.join(pointer, "decryptionKey"), "is required") }
        if value["verificationKey"] == nil { errors.add(Pointer.join(pointer, "verificationKey"), "is required") }
        guard errors.errors.count == before, let decryption, let verification else { return nil }
        return LocalDecodingKeys(decryptionKey: decryption, verificationKey: verification)
    }

    public static func decryptionKey(_ text: String?, at pointer: String, errors: inout FieldErrors) -> [UInt8]? {
        guard let text, let bytes = Base64.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            errors.add(pointer, "must be the base64 decryption key from Play Console (32 bytes, AES-256)")
            return nil
        }
        return bytes
    }

    public static func verificationKey(_ text: String?, at pointer: String, errors: inout FieldErrors) -> [UInt8]? {
        guard let text, let der = Base64.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)),
              (try? ECPublicKey(derSubjectPublicKeyInfo: der)) != nil
        else {
            errors.add(pointer, "must be the base64 verification key from Play Console (DER of an EC P-256 public key)")
            return nil
        }
        return der
    }
}
