/// One link of an immutable linked stack whose links live in the renderer's own call frames (no heap allocation).
/// A link is only ever reached through a pointer handed to a non-escaping closure by `Link.push`, and the renderer
/// never keeps such a pointer beyond that closure, so every pointer it follows is to a live value.
struct Link<Element> {
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

/// Indentation to put at line starts: a slice of a template's text.
struct Indentation {
    let template: Int
    let range: Range<Int>
}

/// A parent tag being rendered, whose body holds its block overrides.
struct ParentCall {
    let template: Int
    let instruction: Int
}

/// The renderer's immutable state at one point of a template, changed only by copy: the context stack, the
/// indentation to put at each line start, the parents being rendered (for block overrides), and the chain of
/// templates being expanded (for cycle errors).
struct Scope {
    /// The context stack, top first.
    var context: UnsafePointer<Link<MustacheValue>>
    /// Indentation pieces, innermost first; nil renders lines without indentation.
    var indentation: UnsafePointer<Link<Indentation>>?
    /// Parent tags being rendered, innermost first (the outermost override of a block wins).
    var overrides: UnsafePointer<Link<ParentCall>>?
    /// Indices of the templates being expanded, innermost first.
    var calls: UnsafePointer<Link<Int>>
    /// How many partials and parents deep this is.
    var partialDepth: Int
    /// How many sections, partials and blocks deep this is.
    var depth: Int
}

extension Scope {
    /// Runs `body` one level deeper, with `indentation` added (a standalone tag's) or with none (nil: an inline tag,
    /// whose content continues the current line).
    @inline(__always)
    func indented(by indentation: Indentation?, _ body: (Scope) throws(TemplateError) -> Void) throws(TemplateError) {
        var inner = self
        inner.depth += 1
        guard let indentation else {
            inner.indentation = nil
            return try body(inner)
        }
        if indentation.range.isEmpty { return try body(inner) }
        try Link.push(indentation, onto: self.indentation) { (link) throws(TemplateError) in
            inner.indentation = link
            try body(inner)
        }
    }
}
