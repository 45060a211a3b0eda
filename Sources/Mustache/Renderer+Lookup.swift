extension Renderer {
    /// The value a name resolves to: the first key through the context stack, the others inside it.
    @inline(__always)
    static func lookup(
        _ view: ProgramView, _ instruction: InstructionRef, _ scope: Scope, _ hints: UnsafeMutablePointer<UInt8>,
        _ layout: (value: Int, key: Int)
    ) -> UnsafePointer<MustacheValue>? {
        let count = Int(instruction.keyCount)
        guard count > 0 else { return scope.context.pointee.element }
        let first = Int(instruction.firstKey)
        var link: UnsafePointer<Link<UnsafePointer<MustacheValue>>>? = scope.context
        var found: UnsafePointer<MustacheValue>?
        while let current = link {
            if let value = member(current.pointee.element, view, first, hints, layout) {
                found = value
                break
            }
            link = current.pointee.next
        }
        guard var value = found else { return nil }
        var position = first + 1
        while position < first + count {
            guard let member = member(value, view, position, hints, layout) else { return nil }
            value = member
            position += 1
        }
        return value
    }

    /// The member of `value` named by key `key` of `view`, if `value` is a dictionary that has it. Tries where the
    /// key was last found first, then scans; compares fingerprints, then the two strings' bits (equal bits are equal
    /// strings), then the strings.
    @inline(__always)
    static func member(
        _ value: UnsafePointer<MustacheValue>, _ view: ProgramView, _ key: Int, _ hints: UnsafeMutablePointer<UInt8>,
        _ layout: (value: Int, key: Int)
    ) -> UnsafePointer<MustacheValue>? {
        guard let members = value.members, let base = members.baseAddress else { return nil }
        let fingerprint = view.fingerprints[key]
        let wanted = UnsafeRawPointer(view.keys + key)
        let guess = Int(hints[key])
        if guess < members.count, (base + guess).pointee.fingerprint == fingerprint {
            let raw = UnsafeRawPointer(base + guess)
            let bits = raw + layout.key
            if bits.load(as: UInt64.self) == wanted.load(as: UInt64.self)
                && bits.load(fromByteOffset: 8, as: UInt64.self) == wanted.load(fromByteOffset: 8, as: UInt64.self) {
                return (raw + layout.value).assumingMemoryBound(to: MustacheValue.self)
            }
        }
        for position in 0..<members.count {
            let member = base + position
            guard Member.mayMatch(member.pointee.fingerprint, fingerprint) else { continue }
            let raw = UnsafeRawPointer(member)
            let bits = raw + layout.key
            let sameBits = bits.load(as: UInt64.self) == wanted.load(as: UInt64.self)
                && bits.load(fromByteOffset: 8, as: UInt64.self) == wanted.load(fromByteOffset: 8, as: UInt64.self)
            if sameBits || member.pointee.key == view.keys[key] {
                hints[key] = UInt8(truncatingIfNeeded: position)
                return (raw + layout.value).assumingMemoryBound(to: MustacheValue.self)
            }
        }
        return nil
    }
}
