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
/// buffer). The views point into `programs`' memory and this table's own, so they are valid while the table is.
///
/// `@unchecked Sendable`: the owned buffers are filled in `init` and never written again; `programs` keeps alive
/// the memory the views point into; `lastSize` is atomic.
final class RenderTable: @unchecked Sendable {
    let programs: [Program]
    /// One view per program, in the same order.
    private let viewMemory: OwnedBuffer<ProgramView>
    private let references: OwnedBuffer<LinkedReference>
    private let blocks: OwnedBuffer<LinkedBlock>
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
        let references = OwnedBuffer(linkedReferences, padding: LinkedReference(template: -1, indentStart: 0, indentCount: -1))
        let blocks = OwnedBuffer(linkedBlocks, padding: LinkedBlock(name: -1, indentStart: 0, indentCount: -1))
        var views: [ProgramView] = []
        for (index, program) in programs.enumerated() {
            views.append(ProgramView(
                instructions: program.instructionMemory.base, instructionCount: program.instructions.count,
                text: program.textMemory.base, keys: program.keyMemory.base,
                fingerprints: program.fingerprintMemory.base, keyOffset: starts[index].keys,
                references: references.base + starts[index].references, blocks: blocks.base + starts[index].blocks))
        }
        self.references = references
        self.blocks = blocks
        self.keyCount = keyCount
        viewMemory = OwnedBuffer(copying: views)
    }

    /// The views, one per program in the same order; valid while this table lives.
    var views: UnsafePointer<ProgramView> { UnsafePointer(viewMemory.base) }
}
