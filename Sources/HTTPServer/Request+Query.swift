import HTTP

extension Request {
    /// The query string's `name=value` pairs in order, repeats kept, `+` and `%XX` decoded (pieces that do not
    /// decode are dropped). Empty when there is no query.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return URLEncoding.parseQuery(query).map { (name: $0.0, value: $0.1) }
    }

    /// The first value of query parameter `name`, decoded, or nil when absent.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
