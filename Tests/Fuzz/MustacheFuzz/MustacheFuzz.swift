// libFuzzer target for the Mustache parser and renderer. Built with `-DFUZZING` and `--sanitize=fuzzer` (see
// `make fuzz-mustache`), libFuzzer supplies `main` and calls `LLVMFuzzerTestOneInput`; in a plain build the `main`
// below replays files (a crash input or the committed corpus) through the same checks.
import Mustache
import FuzzReplay

/// Small limits, so inputs of a few hundred bytes reach every limit path quickly.
let fuzzLimits = TemplateLimits(maxNesting: 40, maxPartialDepth: 16, maxRenderSteps: 50_000, maxRenderDepth: 200,
                                maxOutputBytes: 1 << 20)

/// The fixed data every input renders against: every kind of value, escaping characters, nesting, lists.
let fuzzValue: MustacheValue = [
    "s": "text <&>\"' ok", "n": 42, "d": 1.5, "t": true, "f": false, "z": nil, "e": [], "empty": "",
    "list": [1, "two", ["s": "inner", "list": [3]]],
    "a": ["b": ["c": "deep"], "s": "shadow"],
]

/// libFuzzer's entry point: checks one input; any broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// Splits the input at NUL bytes into templates `main`, `a`, `b` (so partials and parents meet each other), loads
/// them, renders `main`; errors must name a place, output must be valid UTF-8 and the same on every render.
func check(_ input: [UInt8]) {
    let parts = input.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
    var sources: [String: String] = [:]
    for (name, part) in zip(["main", "a", "b"], parts) { sources[name] = String(decoding: part, as: UTF8.self) }
    let library: TemplateLibrary
    do {
        library = try TemplateLibrary(templates: sources, limits: fuzzLimits)
    } catch {
        precondition(!error.message.isEmpty && error.line >= 0 && error.column >= 0, "an error without a place")
        precondition(sources[error.file] != nil, "an error naming an unknown file")
        if error.line > 0, let source = sources[error.file] {
            precondition(error.line <= source.utf8.filter { $0 == 10 }.count + 1, "an error past the last line")
        }
        return
    }
    do {
        let first = try library.renderBytes("main", fuzzValue)
        precondition(first.count <= fuzzLimits.maxOutputBytes + (parts.first?.count ?? 0) * 8 + 4096,
                     "output past the limit")
        precondition(String(validating: first, as: UTF8.self) != nil, "output is not valid UTF-8")
        let second = try library.render("main", fuzzValue)
        precondition(Array(second.utf8) == first, "two renders differ")
    } catch {
        precondition(!error.message.isEmpty, "a render error without a message")
    }
}

#if !FUZZING
/// Replays the files named on the command line through `check`.
@main
struct MustacheFuzzReplay {
    static func main() {
        let files = CommandLine.arguments.dropFirst()
        if files.isEmpty { print("usage: MustacheFuzz FILE... (replays inputs; `make fuzz-mustache` fuzzes)") }
        replay(arguments: files) { check($0) }
    }
}
#endif
