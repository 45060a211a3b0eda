/// An incremental HTTP/1.1 request parser (RFC 9112): bytes in, events out, no I/O.
///
/// Feed it whatever the socket delivered; it returns every complete request (pipelined ones in order), an
/// `.expectContinue` when a client waits for `100 Continue`, or one `.error` after which it stays failed. Any split of
/// the same input yields the same events. It keeps only an unfinished line between feeds and scans each byte once.
///
/// Choices where RFC 9112 leaves room, all on the strict side because a parser that disagrees with a proxy in front
/// of it is how requests get smuggled:
/// - Lines must end in CRLF. A bare LF (allowed by §2.2 as a MAY) and a bare CR are rejected with 400.
/// - Empty lines before a request line are skipped (§2.2), up to `maxRequestLineBytes` of them.
/// - obs-fold, whitespace before a field's colon, repeated `Content-Length` (even equal), `Content-Length` with
///   `Transfer-Encoding`, `Transfer-Encoding` on HTTP/1.0, and `chunked` not last (§6.3) are 400; any coding other
///   than a single `chunked` is 501.
/// - Trailer fields of a chunked body are checked like header fields, then discarded (they never override headers).
/// - An absolute-form target is reduced to origin-form and its authority replaces `Host` (§3.2.2).
/// - An `Expect` other than `100-continue` on HTTP/1.1 is 417 (RFC 9110 §10.1.1).
public struct RequestParser: Sendable {
    /// Where the parser is in the current request, so that the server can pick the timeout that applies.
    public enum Phase: Sendable, Equatable {
        /// Between requests: no byte of the next request seen yet (the keep-alive idle timeout applies).
        case idle
        /// Reading a request line or header section (the header timeout applies).
        case head
        /// Reading a body (the body timeout applies).
        case body
        /// An error was reported; the connection should be closed.
        case failed
    }

    enum State: Sendable, Equatable {
        case requestLine
        case headerLine
        case body(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataCR
        case chunkDataLF
        case trailerLine
        case failed
    }

    /// The request being assembled and the facts about its head that decide its framing.
    struct Pending: Sendable {
        var method = ""
        var target = ""
        var version = HTTPVersion.http11
        var headers = Headers()
        var body: [UInt8] = []
        var headerBytes = 0
        var trailerBytes = 0
        var trailerCount = 0
        var hostCount = 0
        var authority: String?
        var contentLengthCount = 0
        var contentLength: [UInt8] = []
        var transferEncodings: [String] = []
        var expectations: [String] = []
    }

    /// The limits this parser enforces (the byte and count ones; timeouts are the server's).
    public let limits: HTTPLimits
    var state: State = .requestLine
    /// Bytes received but not consumed: at most the start of one line (or the CR of a chunk's CRLF).
    var buffer: [UInt8] = []
    /// How many bytes of the current line (which starts at the first unconsumed byte) were already scanned.
    var lineScanned = 0
    /// Bytes of empty lines skipped before the current request line.
    var leadingEmptyBytes = 0
    var pending = Pending()

    /// A parser waiting for the first request of a connection.
    public init(limits: HTTPLimits = .init()) {
        self.limits = limits
    }

    /// Where the parser is; `.idle` when it has seen no byte of a next request.
    public var phase: Phase {
        switch state {
        case .failed: return .failed
        case .requestLine: return buffer.isEmpty && leadingEmptyBytes == 0 ? .idle : .head
        case .headerLine: return .head
        default: return .body
        }
    }

    /// Parses the next bytes of the connection and returns what they complete, in order. After an `.error` event,
    /// and on every later call, no further event is produced.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [ParseEvent] {
        if state == .failed { return [] }
        var events: [ParseEvent] = []
        if buffer.isEmpty {
            bytes.withMemoryRebound(to: UInt8.self) { input in
                let used = process(input, into: &events)
                if state != .failed && used < input.count {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: input[used...]))
                }
            }
        } else {
            var data = buffer
            buffer = []  // so that appending to `data` does not copy
            data.append(contentsOf: bytes)
            let used = data.withUnsafeBufferPointer { process($0, into: &events) }
            if state != .failed && used < data.count {
                // Nothing consumed: keep growing the same array (amortized, so byte-by-byte feeding stays linear).
                // Something consumed: copy the rest to a fresh array, so that no big read buffer stays allocated.
                buffer = used == 0 ? data : Array(data[used...])
            }
        }
        return events
    }

    /// Parses the next bytes of the connection; see `feed(_:)` taking a raw buffer.
    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) -> [ParseEvent] where Bytes.Element == UInt8 {
        if let events = bytes.withContiguousStorageIfAvailable({ feed(UnsafeRawBufferPointer($0)) }) {
            return events
        }
        return Array(bytes).withUnsafeBytes { feed($0) }
    }

    /// Consumes as much of `buf` as the state machine can, appending events; returns how many bytes it used.
    mutating func process(_ buf: UnsafeBufferPointer<UInt8>, into events: inout [ParseEvent]) -> Int {
        var pos = 0
        while true {
            switch state {
            case .failed:
                return pos
            case .requestLine, .headerLine, .chunkSizeLine, .trailerLine:
                let (limit, overflow) = lineLimit()
                switch Self.scanLine(buf, lineStart: pos, from: pos + lineScanned, limit: limit, overflow: overflow) {
                case .needMore(let scanned):
                    lineScanned = scanned - pos
                    return pos
                case .failure(let error):
                    fail(error, into: &events)
                    return pos
                case .line(let end, let next):
                    lineScanned = 0
                    handleLine(UnsafeBufferPointer(rebasing: buf[pos..<end]), into: &events)
                    pos = next
                }
            case .body(let remaining):
                let n = min(remaining, buf.count - pos)
                pending.body.append(contentsOf: UnsafeBufferPointer(rebasing: buf[pos..<(pos + n)]))
                pos += n
                guard n == remaining else {
                    state = .body(remaining: remaining - n)
                    return pos
                }
                complete(into: &events)
            case .chunkData(let remaining):
                let n = min(remaining, buf.count - pos)
                pending.body.append(contentsOf: UnsafeBufferPointer(rebasing: buf[pos..<(pos + n)]))
                pos += n
                guard n == remaining else {
                    state = .chunkData(remaining: remaining - n)
                    return pos
                }
                state = .chunkDataCR
            case .chunkDataCR, .chunkDataLF:
                guard pos < buf.count else { return pos }
                let expected = state == .chunkDataCR ? ASCII.cr : ASCII.lf
                guard buf[pos] == expected else {
                    fail(.badRequest("chunk data not followed by CRLF"), into: &events)
                    return pos
                }
                pos += 1
                state = state == .chunkDataCR ? .chunkDataLF : .chunkSizeLine
            }
        }
    }

    /// The most content bytes the current line may have, and the error for going over.
    func lineLimit() -> (Int, HTTPParseError) {
        switch state {
        case .requestLine:
            return (limits.maxRequestLineBytes, HTTPParseError(status: 414, reason: "request line too long"))
        case .chunkSizeLine:
            return (limits.maxChunkSizeLineBytes, .badRequest("chunk size line too long"))
        case .trailerLine:
            return (limits.maxHeaderBytes - pending.trailerBytes - 2,
                    HTTPParseError(status: 431, reason: "trailer section too large"))
        default:
            return (limits.maxHeaderBytes - pending.headerBytes - 2,
                    HTTPParseError(status: 431, reason: "header section too large"))
        }
    }

    enum LineScan {
        /// A line whose content ends at `end` (its CR) and whose successor starts at `next`.
        case line(end: Int, next: Int)
        /// No line end yet; bytes before `scanned` need no second look.
        case needMore(scanned: Int)
        case failure(HTTPParseError)
    }

    /// Looks for the CRLF ending the line that starts at `lineStart`, resuming at `from`. Each byte is judged only
    /// by the bytes before it and the one after a CR, so every split of the input gives the same verdict.
    static func scanLine(_ buf: UnsafeBufferPointer<UInt8>, lineStart: Int, from: Int, limit: Int,
                         overflow: HTTPParseError) -> LineScan {
        let end = buf.count
        let stop = min(end, lineStart + max(limit, 0))
        var p = from
        while p < stop && buf[p] != ASCII.cr && buf[p] != ASCII.lf { p += 1 }
        if p == end { return .needMore(scanned: p) }
        let b = buf[p]
        if b == ASCII.lf { return .failure(.badRequest("bare LF line ending")) }
        if b != ASCII.cr { return .failure(overflow) }  // a content byte past the limit
        guard p + 1 < end else { return .needMore(scanned: p) }
        if buf[p + 1] == ASCII.lf { return .line(end: p, next: p + 2) }
        return .failure(.badRequest("bare CR"))
    }

    /// Acts on one complete line according to the state.
    mutating func handleLine(_ line: UnsafeBufferPointer<UInt8>, into events: inout [ParseEvent]) {
        do throws(HTTPParseError) {
            switch state {
            case .requestLine:
                if line.isEmpty {
                    leadingEmptyBytes += 2
                    if leadingEmptyBytes > limits.maxRequestLineBytes {
                        throw HTTPParseError.badRequest("too many empty lines before the request line")
                    }
                    return
                }
                leadingEmptyBytes = 0
                try parseRequestLine(line)
                state = .headerLine
            case .headerLine:
                pending.headerBytes += line.count + 2
                if line.isEmpty {
                    try endOfHead(into: &events)
                } else {
                    try parseHeaderLine(line)
                }
            case .trailerLine:
                pending.trailerBytes += line.count + 2
                if line.isEmpty {
                    complete(into: &events)
                } else {
                    try parseTrailerLine(line)
                }
            case .chunkSizeLine:
                try parseChunkSizeLine(line)
            default:
                return
            }
        } catch {
            fail(error, into: &events)
        }
    }

    /// Hands out the finished request and gets ready for the next one.
    mutating func complete(into events: inout [ParseEvent]) {
        let done = pending
        pending = Pending()
        state = .requestLine
        events.append(.request(Request(method: done.method, target: done.target, version: done.version,
                                       headers: done.headers, body: done.body)))
    }

    /// Reports `error` and stays failed.
    mutating func fail(_ error: HTTPParseError, into events: inout [ParseEvent]) {
        events.append(.error(error))
        state = .failed
        pending = Pending()
        buffer = []
    }
}
