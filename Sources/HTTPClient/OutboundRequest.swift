/// An HTTPS request to send with ``HTTPClient/send(_:)``.
public struct OutboundRequest: Sendable {
    /// The request methods the client sends.
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    /// The method.
    public var method: Method
    /// An absolute `https://` URL.
    public var url: String
    /// Header fields in order (repeats allowed). Values may be secret (`Authorization`): they never appear in errors.
    public var headers: [(name: String, value: String)]
    /// The body (sent with `Content-Length`; empty means none).
    public var body: [UInt8]
    /// This call's time limit, instead of ``HTTPClientConfiguration/totalTimeout`` (e.g. what is left of a budget).
    public var timeout: Duration?
    /// Connect to this address for the URL's host and port (`CURLOPT_RESOLVE`), on a connection of its own: an address
    /// the caller resolved and checked is the one reached, whatever the name resolves to by the time it connects.
    public var pinned: (host: String, port: Int, address: OutboundAddress)?

    /// A request; see the properties.
    public init(method: Method, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// Checks what libcurl would otherwise pass on or reject late: an https URL (or `http` when `allowingHTTP`) without
    /// spaces or control characters, header names that are RFC 9110 tokens, values without CR, LF or NUL.
    ///
    /// - Throws: ``HTTPClientError/invalidRequest(_:)`` naming the URL's problem or the header's name (not its value).
    func validate(allowingHTTP: Bool = false) throws(HTTPClientError) {
        let lowered = url.lowercased()
        guard url.utf8.count <= 8192, lowered.hasPrefix("https://") || (allowingHTTP && lowered.hasPrefix("http://")) else {
            throw .invalidRequest(allowingHTTP ? "the URL must be an absolute http:// or https:// URL" : "the URL must be an absolute https:// URL")
        }
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalidRequest("the URL holds a space or a control character")
        }
        for header in headers {
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidRequest("a header name is not an HTTP token")
            }
            guard !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .invalidRequest("the value of header \(header.name) holds a line break or NUL")
            }
        }
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
