// The replay tool of every fuzz target: a plain build (without -DFUZZING) has no fuzzing engine to supply `main`, so
// the target's `main` hands the files on its command line, one at a time, to the same checks libFuzzer would call.
#if canImport(Glibc)
import Glibc
#endif

/// Replays fuzz inputs: hands the bytes of each file named in `arguments` (the command line without the program name:
/// a crash input, or a committed corpus) to `body`, which runs the fuzz target's checks and traps on a broken
/// invariant. A file that cannot be read is named and skipped; at the end it prints how many inputs it replayed.
public func replay(arguments: some Sequence<String>, body: ([UInt8]) -> Void) {
    var count = 0
    for path in arguments {
        guard let input = readFile(path) else {
            print("cannot open \(path)")
            continue
        }
        body(input)
        count += 1
    }
    print("replayed \(count) inputs")
}

/// The whole content of the file at `path`, or nil when it cannot be opened.
public func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let got = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if got <= 0 { break }
        data += chunk[0..<got]
    }
    return data
}
