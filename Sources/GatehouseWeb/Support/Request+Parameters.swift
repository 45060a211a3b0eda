import HTTP
import HTTPServer

extension Request {
    /// A path parameter the router filled in; a missing one is a routing bug, answered as 404.
    func parameter(_ name: String) throws -> String {
        guard let value = pathParameters[name], !value.isEmpty else {
            throw HTTPError(status: 404, detail: "No such resource.")
        }
        return value
    }
}

extension Request {
    /// The first value of a query parameter, decoded, or nil.
    func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        return URLEncoding.parseQuery(query).first { $0.0 == name }?.1
    }
}
