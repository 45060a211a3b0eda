/// One link of an immutable linked stack whose links live in the renderer's own call frames (no heap allocation).
/// A link is only ever reached through a pointer handed to a non-escaping closure by `Link.push`, and the renderer
/// never keeps such a pointer beyond that closure, so every pointer it follows is to a live value.
struct Link<Element: BitwiseCopyable>: BitwiseCopyable {
    let element: Element
    let next: UnsafePointer<Link<Element>>?

    /// Runs `body` with a stack that has `element` on top of `next`.
    @inline(__always)
    static func push<Result>(
        _ element: Element, onto next: UnsafePointer<Link<Element>>?,
        _ body: (UnsafePointer<Link<Element>>) throws(TemplateError) -> Result
    ) throws(TemplateError) -> Result {
        try withUnsafePointer(to: Link(element: element, next: next), body)
    }
}

/// A section or inverted section whose body `Renderer.run` is rendering, once per element of a list or once for
/// any other value. `link` is the context's top while the body renders (a list's current element or the section's
/// value; unused by an inverted section, which leaves the context as it was): the context stack points at it.
struct OpenSection: BitwiseCopyable {
    var link: Link<UnsafePointer<MustacheValue>>
    /// The section's instruction: its body follows it; its suffix is written after the body's last rendering.
    let instruction: UnsafePointer<Instruction>
    let bodyEnd: UnsafePointer<Instruction>
    /// How many elements of the list follow the current one.
    var remaining: Int
    /// The context stack the section was entered with, restored when it ends.
    let outer: UnsafePointer<Link<UnsafePointer<MustacheValue>>>
}

/// A parent tag being rendered, whose body holds its block overrides.
struct ParentCall: BitwiseCopyable {
    let template: Int
    let instruction: Int
}

/// The renderer's immutable state at one point of a template, changed only by copy: the context stack, the
/// indentation to put at each line start, the parents being rendered (for block overrides), and the chain of
/// templates being expanded (for cycle errors).
///
/// The context stack holds pointers into the value tree being rendered, which the caller keeps alive and nobody
/// mutates for the whole render.
struct Scope {
    /// The context stack, top first.
    var context: UnsafePointer<Link<UnsafePointer<MustacheValue>>>
    /// The indentation to put at each line start: bytes `indentStart..<indentEnd` of the renderer's indentation
    /// stack, whose bytes from `indentTop` on are free for inner scopes.
    var indentStart: Int
    var indentEnd: Int
    var indentTop: Int
    /// Parent tags being rendered, innermost first (the outermost override of a block wins).
    var overrides: UnsafePointer<Link<ParentCall>>?
    /// Indices of the templates being expanded, innermost first.
    var calls: UnsafePointer<Link<Int>>
    /// How many partials and parents deep this is.
    var partialDepth: Int
    /// How many sections, partials and blocks deep this is.
    var depth: Int
}

extension UnsafePointer where Pointee == MustacheValue {
    /// The members, when this points at a dictionary with some: in the dictionary's own memory (`SharedElements`),
    /// which lives as long as the value tree.
    @inline(__always)
    var members: UnsafeBufferPointer<Member>? {
        guard case .dictionary(let members) = pointee.storage, members.count > 0 else { return nil }
        return UnsafeBufferPointer(start: members.base, count: members.count)
    }

    /// The elements, when this points at a list: in the list's own memory, which lives as long as the value tree.
    @inline(__always)
    var elements: UnsafeBufferPointer<MustacheValue>? {
        guard case .array(let elements) = pointee.storage else { return nil }
        return UnsafeBufferPointer(start: elements.base, count: elements.count)
    }

    /// Whether a section shows for this value.
    @inline(__always)
    var isTruthy: Bool {
        switch pointee.storage {
        case .bool(let value): return value
        case .null: return false
        case .string(let value): return !value.isEmpty
        case .array(let elements): return elements.count > 0
        case .int, .double, .dictionary: return true
        }
    }
}
