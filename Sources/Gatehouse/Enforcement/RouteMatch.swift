/// A route's `match`, compiled (docs/device-api.md "Routes and modes"): an HTTP method or `*`, one space, then a path
/// pattern of `/`-separated segments where `*` is exactly one (non-empty) segment and a final `**` any rest, the
/// empty rest included. Literal segments compare with the segments of a normalized path (``NormalizedPath``); the
/// query string is never matched.
///
/// It matches as the API's framework routes ("Matching as the API routes"), so that no spelling a framework sends to
/// a route's handler escapes the route: methods and literal segments compare without regard to ASCII case, a
/// trailing `/` does not count (on the path or the pattern), and `HEAD` is judged as `GET` (Express, Node's `http`
/// and Flask answer `HEAD` with the `GET` handler).
public struct RouteMatch: Sendable, Equatable {
    /// One segment of the pattern.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case one
        case rest
    }

    /// The text it was read from, as the API shows it.
    public let text: String
    /// The method, nil for `*`.
    let method: String?
    /// The segments as they compare: literals in ASCII lower case, a trailing `/` (an empty last literal) dropped.
    let segments: [Segment]

    /// Why a `match` text is not one.
    public struct Invalid: Error, Sendable, Equatable {
        public let message: String
    }

    /// Compiles `text`.
    /// - Throws: ``Invalid`` saying what is wrong.
    public init(_ text: String) throws(Invalid) {
        let parts = text.utf8.split(separator: UInt8(ascii: " "), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw Invalid(message: "must be a method or *, one space, then a path pattern, e.g. \"POST /api/payments/**\"")
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        guard method == "*" || Self.isMethod(method) else {
            throw Invalid(message: "must start with an HTTP method in capitals (GET, POST, …) or *")
        }
        // Read as bytes: a combining mark after a character would join it into one Character and go unseen.
        let pattern = Array(parts[1])
        guard pattern.first == UInt8(ascii: "/") else { throw Invalid(message: "must have a path pattern starting with / after the method") }
        guard pattern.count <= 1024 else { throw Invalid(message: "must have a path pattern of at most 1024 characters") }
        var segments: [Segment] = []
        let raw = pattern.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (i, part) in raw.enumerated() {
            let isLast = i == raw.count - 1
            switch String(decoding: part, as: UTF8.self) {
            case "**":
                guard isLast else { throw Invalid(message: "may have ** only as the last segment (any rest of the path)") }
                segments.append(.rest)
            case "*":
                segments.append(.one)
            case "":
                // "/" alone, or a trailing slash: an empty last segment; "//" inside is never in a normalized path.
                guard isLast else { throw Invalid(message: "must not have an empty segment (//): paths are matched with repeated / collapsed") }
                segments.append(.literal(""))
            case ".", "..":
                throw Invalid(message: "must not have . or .. segments: paths are matched with dot segments removed")
            case let literal:
                guard part.allSatisfy(Self.isSegmentByte) else {
                    throw Invalid(message: "must have path segments of letters, digits and -._~!$&'()+,;=:@ only (written decoded, without %, ? or spaces); * and ** stand for whole segments")
                }
                segments.append(.literal(NormalizedPath.lowercased(literal)))
            }
        }
        if segments.last == .literal("") { segments.removeLast() }
        self.text = text
        self.method = method == "*" ? nil : method
        self.segments = segments
    }

    /// Whether a call `method` (as sent: any case) on `path` matches.
    public func matches(method: String, path: NormalizedPath) -> Bool {
        matches(method: method, segments: path.folded)
    }

    /// Whether a call `method` on folded segments (``NormalizedPath``'s `folded` or `written`) matches.
    func matches(method: String, segments parts: [String]) -> Bool {
        if let own = self.method, !Self.method(method, isJudgedAs: own) { return false }
        var i = 0
        for segment in segments {
            switch segment {
            case .rest:
                return true
            case .one:
                guard i < parts.count, !parts[i].isEmpty else { return false }
            case .literal(let text):
                guard i < parts.count, parts[i] == text else { return false }
            }
            i += 1
        }
        return i == parts.count
    }

    /// Whether a call's `method` is judged under a route of method `own` (in capitals): the same method in any ASCII
    /// case, or `HEAD` for `GET`.
    static func method(_ method: String, isJudgedAs own: String) -> Bool {
        let sent = method.utf8
        guard sent.count == own.utf8.count || own == "GET" else { return false }
        if sent.elementsEqual(own.utf8, by: { Self.upper($0) == $1 }) { return true }
        return own == "GET" && sent.elementsEqual("HEAD".utf8, by: { Self.upper($0) == $1 })
    }

    static func upper(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte & ~0x20 : byte
    }

    /// RFC 9110 token characters, upper-case letters only (methods are case-sensitive and registered in capitals).
    static func isMethod(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 32 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    static func isSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~!$&'()+,;=:@".utf8.contains(byte)
        }
    }
}
