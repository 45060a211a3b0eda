extension Request {
    /// Whether the connection stays open after this request (RFC 9112 §9.3): on HTTP/1.1 unless a `Connection`
    /// field lists `close`; on HTTP/1.0 only when one lists `keep-alive` (and none lists `close`). Tokens are
    /// compared without regard to case, across every `Connection` field.
    public var keepAlive: Bool {
        var close = false, keepAlive = false
        for field in headers where Headers.same(field.name, "Connection") {
            for token in ASCII.listElements([field.value]) {
                if ASCII.equalsIgnoringCase(token, "close") { close = true }
                if ASCII.equalsIgnoringCase(token, "keep-alive") { keepAlive = true }
            }
        }
        if close { return false }
        return version == .http10 ? keepAlive : true
    }
}
