import Foundation
import TestSupport

/// Real keys made with the `openssl` command for tests: a service-account JSON key with an RSA private key, and
/// Play Console-style local keys (AES-256 + EC P-256 public key).
public enum TestKeys {
    /// A PKCS#8 PEM RSA private key.
    public static func rsaPrivateKeyPEM() throws -> String {
        String(decoding: try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], in: NSTemporaryDirectory()), as: UTF8.self)
    }

    /// Base64 DER (SubjectPublicKeyInfo) of a fresh EC P-256 public key.
    public static func ecPublicKeyBase64() throws -> String {
        let pem = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], in: NSTemporaryDirectory())
        return Data(try openssl(["pkey", "-pubout", "-outform", "DER"], in: NSTemporaryDirectory(), input: pem)).base64EncodedString()
    }

    /// Base64 DER of a fresh EC P-384 public key (the wrong curve for Play Integrity).
    public static func ecP384PublicKeyBase64() throws -> String {
        let pem = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], in: NSTemporaryDirectory())
        return Data(try openssl(["pkey", "-pubout", "-outform", "DER"], in: NSTemporaryDirectory(), input: pem)).base64EncodedString()
    }

    /// A service-account JSON key object (as a JSON string) around a real RSA private key.
    public static func serviceAccountJSON(privateKeyPEM: String, email: String = "integrity@demo-project.iam.gserviceaccount.com") -> String {
        let escaped = privateKeyPEM.replacingOccurrences(of: "\n", with: "\\n")
        return """
        {"type": "service_account", "project_id": "demo-project", "private_key_id": "0123456789abcdef",
         "private_key": "\(escaped)", "client_email": "\(email)", "client_id": "1234567890",
         "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token"}
        """
    }

    /// 32 random bytes as base64 (a decryption key).
    public static func aesKeyBase64() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }
}
