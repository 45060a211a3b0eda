// libFuzzer target for the HTTP parser. Built with `-DFUZZING` and `--sanitize=fuzzer` (see `make fuzz-http`),
// libFuzzer supplies `main` and calls `LLVMFuzzerTestOneInput`; in a plain build the `main` below replays files
// (e.g. a crash input or the committed corpus) through the same checks.
import HTTP
import FuzzReplay

/// Small limits, so that inputs of a few hundred bytes reach every limit path.
let fuzzLimits = HTTPLimits(maxRequestLineBytes: 200, maxHeaderBytes: 400, maxHeaderCount: 8, maxBodyBytes: 600,
                            maxChunkSizeLineBytes: 40)

/// libFuzzer's entry point: runs every check on one input; any broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkParser(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// Feeds the input whole, split at two places derived from the input, and (when short) byte by byte; all must
/// give the same events, which must themselves be well formed.
func checkParser(_ input: UnsafeBufferPointer<UInt8>) {
    let bytes = UnsafeRawBufferPointer(input)
    var parser = RequestParser(limits: fuzzLimits)
    let whole = parser.feed(bytes)
    precondition(parser.feed(bytes).isEmpty || !whole.contains(where: isError), "events after an error")

    let n = bytes.count
    let seed = n == 0 ? 0 : Int(input[0]) &* 131 &+ Int(input[n - 1]) &* 7 &+ n
    let cut1 = n == 0 ? 0 : seed % (n + 1)
    let cut2 = cut1 + (n - cut1 == 0 ? 0 : (seed / 3) % (n - cut1 + 1))
    var split = RequestParser(limits: fuzzLimits)
    var pieces = split.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<cut1]))
    pieces += split.feed(UnsafeRawBufferPointer(rebasing: bytes[cut1..<cut2]))
    pieces += split.feed(UnsafeRawBufferPointer(rebasing: bytes[cut2..<n]))
    precondition(pieces == whole, "a split at \(cut1), \(cut2) changed the events")

    if n <= 512 {
        var byByte = RequestParser(limits: fuzzLimits)
        var events: [ParseEvent] = []
        for i in 0..<n { events += byByte.feed(UnsafeRawBufferPointer(rebasing: bytes[i..<(i + 1)])) }
        precondition(events == whole, "byte-by-byte feeding changed the events")
    }

    for (index, event) in whole.enumerated() {
        switch event {
        case .error(let error):
            precondition(index == whole.count - 1, "an event after an error")
            precondition([400, 413, 414, 417, 431, 501, 505].contains(error.status), "unexpected status")
        case .request(let request):
            precondition(request.body.count <= fuzzLimits.maxBodyBytes, "body over the limit")
            // An absolute-form target on HTTP/1.0 may add a Host field to the received ones.
            precondition(request.headers.count <= fuzzLimits.maxHeaderCount + 1, "too many headers")
            checkHelpers(request)
        case .expectContinue:
            guard index + 1 < whole.count else { break }
            if case .expectContinue = whole[index + 1] { preconditionFailure("two expectContinue in a row") }
        }
    }
}

func isError(_ event: ParseEvent) -> Bool {
    if case .error = event { return true }
    return false
}

/// Runs the router helpers and the serializer on what the parser produced: the serializer must never let a
/// header value end the head early.
func checkHelpers(_ request: Request) {
    _ = URLEncoding.percentDecode(request.path, plusAsSpace: false)
    if let query = request.query { _ = URLEncoding.parseQuery(query) }
    _ = request.keepAlive
    var headers = request.headers
    for field in request.headers {
        if let t = ResponseSerializer.parseHTTPDate(field.value) {
            let formatted = ResponseSerializer.httpDate(epochSeconds: t)
            precondition(ResponseSerializer.parseHTTPDate(formatted) == t, "date round trip")
        }
        // Values a buggy handler might produce from request data.
        if let decoded = URLEncoding.percentDecode(field.value, plusAsSpace: true) { headers.add("X-Echo", decoded) }
    }
    let out = ResponseSerializer.serialize(Response(status: 200, headers: headers, body: request.body),
                                           keepAlive: request.keepAlive, headOnly: request.method == "HEAD", date: nil)
    var reparsedHeadEnd = -1
    var i = 0
    while i + 1 < out.count {
        if out[i] == 13 || out[i] == 10 {
            precondition(out[i] == 13 && out[i + 1] == 10, "bare CR or LF in a serialized head")
            if i + 3 < out.count, out[i + 2] == 13, out[i + 3] == 10 {
                reparsedHeadEnd = i + 4
                break
            }
            i += 2
            continue
        }
        i += 1
    }
    precondition(reparsedHeadEnd >= 0, "serialized head without an end")
    precondition(out.count - reparsedHeadEnd == (request.method == "HEAD" ? 0 : request.body.count), "body framing")
}

#if !FUZZING
/// Replays the files named on the command line through the checks (no fuzzing engine).
@main
struct HTTPParserFuzzReplay {
    static func main() {
        replay(arguments: CommandLine.arguments.dropFirst()) { input in
            input.withUnsafeBufferPointer { checkParser($0) }
        }
    }
}
#endif
