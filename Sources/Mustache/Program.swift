/// A parsed template compiled into a flat list of plain-integer instructions, so rendering walks it without
/// touching reference counts. Immutable once built.
///
/// `@unchecked Sendable`: the buffers are allocated and filled in `init`, never written again, and freed in
/// `deinit`; every other property is an immutable Sendable value, so sharing a Program across threads is safe.
final class Program: @unchecked Sendable {
    /// The instructions; a section's body is the instructions after it up to its `end`.
    let instructions: [Instruction]
    /// All literal text and tag indentation of the template, which `text` instructions slice.
    let text: [UInt8]
    /// `instructions`, `text`, `keys` and the keys' `Member.fingerprint`s in memory the program owns (one element
    /// at least each), read by the renderer without reference counting.
    let instructionBase: UnsafeMutablePointer<Instruction>
    let textBase: UnsafeMutablePointer<UInt8>
    let keyBase: UnsafeMutablePointer<String>
    let fingerprintBase: UnsafeMutablePointer<UInt64>
    /// Name components of every tag, which instructions slice (`keys[a..<a+b]`).
    let keys: [String]
    /// Partial and parent tags.
    let references: [Reference]
    /// Block tags.
    let blocks: [BlockTag]

    init(instructions: [Instruction], text: [UInt8], keys: [String], references: [Reference], blocks: [BlockTag]) {
        self.instructions = instructions
        self.text = text
        self.keys = keys
        self.references = references
        self.blocks = blocks
        instructionBase = Self.copy(instructions, padding: Instruction(operation: .text))
        // Padded so that the renderer may read `OutputBuffer.padding` bytes past any text.
        textBase = .allocate(capacity: text.count + OutputBuffer.padding)
        textBase.initialize(repeating: 0, count: text.count + OutputBuffer.padding)
        textBase.update(from: text, count: text.count)
        keyBase = Self.copy(keys, padding: "")
        fingerprintBase = Self.copy(keys.map(Member.fingerprint), padding: 0)
    }

    deinit {
        instructionBase.deallocate()
        textBase.deallocate()
        keyBase.deinitialize(count: max(keys.count, 1)).deallocate()
        fingerprintBase.deallocate()
    }

    /// `elements` (or `padding` alone when empty) in newly allocated memory.
    private static func copy<Element>(_ elements: [Element], padding: Element) -> UnsafeMutablePointer<Element> {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: max(elements.count, 1))
        if elements.isEmpty {
            base.initialize(to: padding)
        } else {
            for (index, element) in elements.enumerated() { (base + index).initialize(to: element) }
        }
        return base
    }

    /// The same program with `references` replaced (once they point at templates of a library).
    func with(references: [Reference]) -> Program {
        Program(instructions: instructions, text: text, keys: keys, references: references, blocks: blocks)
    }
}

/// One step of a program. Operands by operation:
/// Variables and sections may have a prefix (text written first) and a suffix (text written last). `text` a = offset in `text`, b = length; `lineText` the indentation, then text as `text`; `variable`/`rawVariable` a = first key, b = key count (0: `.`);
/// `section`/`inverted` a, b as variables, c = end of body; `partial` a = reference; `parent` a = reference,
/// c = end of body (the body holds only its blocks); `block` a = block tag, c = end of body.
struct Instruction: Sendable {
    enum Operation: UInt8, Sendable {
        case text, lineStart, lineText, variable, rawVariable, section, inverted, partial, parent, block
    }

    /// What a variable or section writes before itself: nothing, `prefixCount` bytes of text from `prefixStart`,
    /// or the same after the indentation (a line start).
    enum Prefix: UInt8, Sendable {
        case none, text, line
    }

    var operation: Operation
    var prefix = Prefix.none
    var prefixCount: UInt16 = 0
    /// What a variable, section or inverted section writes after itself (after the section's body):
    /// `suffixCount` bytes of text from `suffixStart`.
    var suffixCount: UInt16 = 0
    var a: Int32 = 0
    var b: Int32 = 0
    var c: Int32 = 0
    var prefixStart: Int32 = 0
    var suffixStart: Int32 = 0
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
