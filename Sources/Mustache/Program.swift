/// A parsed template compiled into a flat list of plain-integer instructions, so rendering walks it without
/// touching reference counts. Immutable once built.
///
/// `@unchecked Sendable`: the owned buffers are filled in `init` and never written again; every other property is
/// an immutable Sendable value, so sharing a Program across threads is safe.
final class Program: @unchecked Sendable {
    /// The instructions; a section's body is the instructions after it up to its `bodyEnd`.
    let instructions: [Instruction]
    /// All literal text and tag indentation of the template, which `text` instructions slice.
    let text: [UInt8]
    /// Name components of every tag, which instructions slice (`keys[firstKey..<firstKey+keyCount]`).
    let keys: [String]
    /// Partial and parent tags.
    let references: [Reference]
    /// Block tags.
    let blocks: [BlockTag]
    /// `instructions`, `text`, `keys` and the keys' `Member.fingerprint`s in memory the program owns (one element
    /// at least each), which the renderer reads through `RenderTable` without reference counting. The text is
    /// followed by `OutputBuffer.padding` zeros, so that the renderer may read that far past any text.
    let instructionMemory: OwnedBuffer<Instruction>
    let textMemory: OwnedBuffer<UInt8>
    let keyMemory: OwnedBuffer<String>
    let fingerprintMemory: OwnedBuffer<UInt64>

    init(instructions: [Instruction], text: [UInt8], keys: [String], references: [Reference], blocks: [BlockTag]) {
        self.instructions = instructions
        self.text = text
        self.keys = keys
        self.references = references
        self.blocks = blocks
        instructionMemory = OwnedBuffer(instructions, padding: Instruction(.text))
        textMemory = OwnedBuffer(text, padding: 0, paddingCount: OutputBuffer.padding)
        keyMemory = OwnedBuffer(keys, padding: "")
        fingerprintMemory = OwnedBuffer(keys.map(Member.fingerprint), padding: 0)
    }

    /// The same program with `references` replaced (once they point at templates of a library).
    func with(references: [Reference]) -> Program {
        Program(instructions: instructions, text: text, keys: keys, references: references, blocks: blocks)
    }
}

/// A partial or parent tag: the template it names and where it stands.
struct Reference: Sendable {
    let name: String
    /// The index of the named template in its library, once linked; nil when no such template.
    var index: Int?
    /// For a standalone tag, the whitespace before it (a slice of the program's text) prepended to every line of
    /// the template; nil inline.
    let indentation: Range<Int>?
    let line: Int
    let column: Int
}

/// A block tag `{{$name}}`: its name and, when standalone, the indentation its content takes where it expands.
struct BlockTag: Sendable {
    let name: String
    let indentation: Range<Int>?
}
