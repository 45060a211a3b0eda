import Attestation
import Crypto
import JSON

extension PlayIntegrityFields {
    /// Candidate local keys for the key check, `{"decryptionKey", "verificationKey"}` as Play Console shows them:
    /// what cannot be such a key (not 32 bytes; not a P-256 SubjectPublicKeyInfo) is named by pointer, both at once.
    /// Messages never repeat the values.
    public static func candidateKeys(_ body: JSON) throws(ValidationError) -> PlayIntegrityKeys {
        var errors = FieldErrors()
        guard let members = body.members else {
            throw ValidationError("", "must be an object with decryptionKey and verificationKey")
        }
        for member in members where member.key != "decryptionKey" && member.key != "verificationKey" {
            errors.add("/" + member.key, "is not a key to check (expected decryptionKey and verificationKey)")
        }
        let decryption = decryptionKey(body["decryptionKey"]?.string, at: "/decryptionKey", errors: &errors)
        let verification = verificationKey(body["verificationKey"]?.string, at: "/verificationKey", errors: &errors)
        try errors.throwIfAny()
        guard let decryption, let verification, let publicKey = try? ECPublicKey(derSubjectPublicKeyInfo: verification),
              let keys = try? PlayIntegrityKeys(decryptionKey: decryption, verificationKey: publicKey) else {
            throw ValidationError("/verificationKey", "must be the base64 verification key from Play Console (DER of an EC P-256 public key)")
        }
        return keys
    }
}
