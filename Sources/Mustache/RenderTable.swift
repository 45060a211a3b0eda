import Synchronization

/// What the renderer reads of one linked template, as plain pointers and integers (no reference counting).
struct ProgramView {
    let instructions: UnsafePointer<Instruction>
    let instructionCount: Int
    let text: UnsafePointer<UInt8>
    let keys: UnsafePointer<String>
    let fingerprints: UnsafePointer<UInt64>
    /// Where this program's keys start among all the library's (the renderer's position hints are per key).
    let keyOffset: Int
    let references: UnsafePointer<LinkedReference>
    let blocks: UnsafePointer<LinkedBlock>
}

/// A partial or parent tag as rendering needs it: the template (-1 when none has its name) and its indentation
/// (a slice of the calling template's text; `indentCount` -1 for an inline tag).
struct LinkedReference {
    let template: Int32
    let indentStart: Int32
    let indentCount: Int32
}

/// A block tag as rendering needs it: its name as a number shared by the whole library, and its indentation as
/// in `LinkedReference`.
struct LinkedBlock {
    let name: Int32
    let indentStart: Int32
    let indentCount: Int32
}

/// The linked templates of a library as `ProgramView`s, and the size of the last render (to size the next one's
/// buffer).
///
/// `@unchecked Sendable`: the buffers are allocated and filled in `init`, never written again, and freed in
/// `deinit`; `programs` keeps alive the memory the views point into; `lastSize` is atomic.
final class RenderTable: @unchecked Sendable {
    let programs: [Program]
    /// One view per program, in the same order.
    let views: UnsafeMutablePointer<ProgramView>
    private let references: UnsafeMutablePointer<LinkedReference>
    private let blocks: UnsafeMutablePointer<LinkedBlock>
    /// The output size of the most recent render, a hint for the next buffer's capacity.
    let lastSize = Atomic<Int>(0)
    /// How many keys all programs have together.
    let keyCount: Int

    init(programs: [Program]) {
        self.programs = programs
        var blockNames: [String: Int32] = [:]
        var linkedReferences: [LinkedReference] = []
        var linkedBlocks: [LinkedBlock] = []
        var starts: [(references: Int, blocks: Int, keys: Int)] = []
        var keyCount = 0
        for program in programs {
            starts.append((linkedReferences.count, linkedBlocks.count, keyCount))
            keyCount += program.keys.count
            for reference in program.references {
                let indentation = reference.indentation
                linkedReferences.append(LinkedReference(
                    template: reference.index.map { Int32($0) } ?? -1,
                    indentStart: Int32(indentation?.lowerBound ?? 0), indentCount: Int32(indentation?.count ?? -1)))
            }
            for block in program.blocks {
                let name: Int32
                if let known = blockNames[block.name] {
                    name = known
                } else {
                    name = Int32(blockNames.count)
                    blockNames[block.name] = name
                }
                linkedBlocks.append(LinkedBlock(
                    name: name, indentStart: Int32(block.indentation?.lowerBound ?? 0),
                    indentCount: Int32(block.indentation?.count ?? -1)))
            }
        }
        references = Self.copy(linkedReferences)
        blocks = Self.copy(linkedBlocks)
        self.keyCount = keyCount
        views = .allocate(capacity: max(programs.count, 1))
        for (index, program) in programs.enumerated() {
            (views + index).initialize(to: ProgramView(
                instructions: program.instructionBase, instructionCount: program.instructions.count,
                text: program.textBase, keys: program.keyBase, fingerprints: program.fingerprintBase,
                keyOffset: starts[index].keys,
                references: references + starts[index].references, blocks: blocks + starts[index].blocks))
        }
    }

    /// `elements` in newly allocated memory (room for one at least).
    private static func copy<Element>(_ elements: [Element]) -> UnsafeMutablePointer<Element> {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: max(elements.count, 1))
        for (index, element) in elements.enumerated() { (base + index).initialize(to: element) }
        return base
    }

    deinit {
        references.deallocate()
        blocks.deallocate()
        views.deallocate()
    }
}
