/// The App Attest environment a key was made in, read from authData's aaguid: `development` for
/// "appattestdevelop", `production` for "appattest" followed by seven zero bytes.
public enum AttestationEnvironment: String, Sendable {
    case development, production

    /// The environment named by a 16-byte aaguid, or nil for any other value.
    public init?(aaguid: [UInt8]) {
        if aaguid == Self.developmentAAGUID {
            self = .development
        } else if aaguid == Self.productionAAGUID {
            self = .production
        } else {
            return nil
        }
    }

    static let developmentAAGUID = Array("appattestdevelop".utf8)
    static let productionAAGUID = Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
}
