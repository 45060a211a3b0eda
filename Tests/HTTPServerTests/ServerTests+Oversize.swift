extension ServerTests {
    /// A request over one of the parser's limits, and the status it must get.
    enum Oversize: String, CaseIterable {
        case requestLine, headers, body

        var request: String {
            switch self {
            case .requestLine: "GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n"
            case .headers:
                "GET / HTTP/1.1\r\nHost: x\r\n"
                    + String(repeating: "X-Filler: \(String(repeating: "b", count: 100))\r\n", count: 200) + "\r\n"
            case .body: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n"
            }
        }

        var status: Int {
            switch self {
            case .requestLine: 414
            case .headers: 431
            case .body: 413
            }
        }
    }
}
