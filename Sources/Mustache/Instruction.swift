/// One step of a program, 28 bytes. Every operand has a name saying what it holds for which operations; the
/// names share storage where operations never use both (a text's start and a variable's first key).
///
/// - `text`, `lineText`: `textStart`, `textCount` (a slice of the program's text); `lineText` writes the
///   indentation first, `lineStart` only that.
/// - `variable`, `rawVariable`: `firstKey`, `keyCount` (a slice of the program's keys; no keys: `.`).
/// - `section`, `inverted`: `firstKey`, `keyCount` as variables; `bodyEnd`.
/// - `partial`: `reference`; `parent`: `reference`, `bodyEnd` (the body holds only its blocks).
/// - `block`: `blockTag`, `bodyEnd`.
///
/// Variables and sections may have a prefix (text written first, perhaps after the indentation) and a suffix (text
/// written last, after a section's body).
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
    /// `textStart`, `firstKey`, `reference` or `blockTag`, by operation.
    private var first: Int32 = 0
    /// `textCount` or `keyCount`, by operation.
    private var second: Int32 = 0
    /// For a section, inverted section, parent or block: the index of the instruction after its body.
    var bodyEnd: Int32 = 0
    var prefixStart: Int32 = 0
    var suffixStart: Int32 = 0

    /// An instruction without operands (`lineStart`; `text` as a padding).
    init(_ operation: Operation) {
        self.operation = operation
    }

    /// A `text` or `lineText` of `count` bytes of text from `start`.
    init(_ operation: Operation, textStart start: Int32, textCount count: Int32) {
        self.operation = operation
        first = start
        second = count
    }

    /// A variable or section naming `count` keys from `firstKey`.
    init(_ operation: Operation, firstKey: Int32, keyCount count: Int32) {
        self.operation = operation
        first = firstKey
        second = count
    }

    /// A partial or parent tag: reference `reference` of the program.
    init(_ operation: Operation, reference: Int32) {
        self.operation = operation
        first = reference
    }

    /// A block tag: block tag `blockTag` of the program.
    init(blockTag: Int32) {
        operation = .block
        first = blockTag
    }

    /// A text's start in the program's text.
    var textStart: Int32 { @inline(__always) get { first } }
    /// A text's length.
    var textCount: Int32 {
        @inline(__always) get { second }
        set { second = newValue }
    }
    /// A variable's or section's first key in the program's keys.
    var firstKey: Int32 { @inline(__always) get { first } }
    /// How many keys a variable's or section's name has (0 for `.`).
    var keyCount: Int32 { @inline(__always) get { second } }
    /// A partial's or parent's reference in the program's references.
    var reference: Int32 { @inline(__always) get { first } }
    /// A block's tag in the program's block tags.
    var blockTag: Int32 { @inline(__always) get { first } }
}

/// An instruction read field by field where it lies, so a dispatch loads only the fields its case uses.
struct InstructionRef {
    let pointer: UnsafePointer<Instruction>

    @inline(__always) init(_ pointer: UnsafePointer<Instruction>) { self.pointer = pointer }

    var pointee: Instruction { @inline(__always) get { pointer.pointee } }
    var operation: Instruction.Operation { @inline(__always) get { pointer.pointee.operation } }
    var prefix: Instruction.Prefix { @inline(__always) get { pointer.pointee.prefix } }
    var prefixCount: UInt16 { @inline(__always) get { pointer.pointee.prefixCount } }
    var prefixStart: Int32 { @inline(__always) get { pointer.pointee.prefixStart } }
    var suffixCount: UInt16 { @inline(__always) get { pointer.pointee.suffixCount } }
    var suffixStart: Int32 { @inline(__always) get { pointer.pointee.suffixStart } }
    var textStart: Int32 { @inline(__always) get { pointer.pointee.textStart } }
    var textCount: Int32 { @inline(__always) get { pointer.pointee.textCount } }
    var firstKey: Int32 { @inline(__always) get { pointer.pointee.firstKey } }
    var keyCount: Int32 { @inline(__always) get { pointer.pointee.keyCount } }
    var reference: Int32 { @inline(__always) get { pointer.pointee.reference } }
    var blockTag: Int32 { @inline(__always) get { pointer.pointee.blockTag } }
    var bodyEnd: Int32 { @inline(__always) get { pointer.pointee.bodyEnd } }
}
