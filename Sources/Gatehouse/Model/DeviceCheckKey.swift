import Crypto

/// A DeviceCheck private key as an admin pastes it (`appAttest.deviceCheckKey`): what signs the JWT of Apple's
/// receipt refresh. Secret: sealed when stored, never logged nor shown.
public struct DeviceCheckKey: Sendable, Equatable, CustomStringConvertible {
    /// The key's identifiers (the JWT's `kid` and `iss`).
    public var id: DeviceCheckKeyID
    /// The private key, PKCS#8 PEM as Apple's `.p8` file holds it.
    public var privateKeyPEM: String

    public init(id: DeviceCheckKeyID, privateKeyPEM: String) {
        self.id = id
        self.privateKeyPEM = privateKeyPEM
    }

    /// Names the key without its secret.
    public var description: String { "DeviceCheckKey(\(id.keyID), team \(id.teamID), <redacted>)" }
}
