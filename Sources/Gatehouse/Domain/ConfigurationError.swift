/// A configuration mistake, said in words that tell what to set (the command line prints it and exits 2).
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
