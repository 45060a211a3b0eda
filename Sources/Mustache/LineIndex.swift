/// Turns byte offsets of a source into 1-based line and column numbers (columns count characters, not bytes).
struct LineIndex: Sendable {
    private let source: [UInt8]
    /// Offsets where each line starts.
    private let starts: [Int]

    init(_ source: [UInt8]) {
        self.source = source
        var starts = [0]
        for (offset, byte) in source.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
        self.starts = starts
    }

    /// The line and column of `offset` (an offset at the end of the source is a valid position).
    func position(of offset: Int) -> (line: Int, column: Int) {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        var column = 1
        var index = starts[low]
        while index < min(offset, source.count) {
            if source[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return (low + 1, column)
    }
}
