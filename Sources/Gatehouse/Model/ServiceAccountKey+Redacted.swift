extension ServiceAccountKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Only the non-secret identifiers: never the private key, whatever interpolates or dumps the value.
    public var description: String { "ServiceAccountKey(\(clientEmail), <redacted>)" }
    /// As ``description``.
    public var debugDescription: String { description }
    /// Hides the key document from `dump` and other reflection.
    public var customMirror: Mirror { Mirror(self, children: ["clientEmail": clientEmail]) }
}
