/// An HTTP request as the server hands it to a handler: a complete message, body included.
public struct Request: Sendable, Equatable {
    /// The method token, as sent (methods are case-sensitive, RFC 9110 §9.1): "GET", "POST", …
    public var method: String
    /// The request target as sent, e.g. "/api/x?y=1".
    public var target: String
    /// The protocol version of the request line.
    public var version: HTTPVersion
    /// The header fields in the order received.
    public var headers: Headers
    /// The complete body (de-chunked), empty when there is none.
    public var body: [UInt8]
    /// Path parameters filled in by the router (`{environmentId}` → value), percent-decoded.
    public var pathParameters: [String: String] = [:]
    /// The address of the peer, when the request came over a socket ("127.0.0.1").
    public var remoteAddress: String?
    /// An id for this request, used in logs and in 500 responses.
    public var id: String = ""

    /// A request with the given parts (the parser builds them; tests build them too).
    public init(method: String, target: String, version: HTTPVersion = .http11, headers: Headers = Headers(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The target's path, before any `?`, still percent-encoded.
    public var path: String {
        // Searching the UTF-8 view skips grapheme breaking; `?` is ASCII, so the index is a character boundary.
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return String(target[..<q]) }
        return target
    }

    /// The target's query string after `?`, still encoded, or nil.
    public var query: String? {
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return String(target[target.utf8.index(after: q)...])
    }
}

/// An HTTP protocol version.
public struct HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    /// The major version digit.
    public var major: Int
    /// The minor version digit.
    public var minor: Int

    /// A version from its two digits.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http11 = HTTPVersion(major: 1, minor: 1)

    /// "HTTP/1.1".
    public var description: String { "HTTP/\(major).\(minor)" }
}
