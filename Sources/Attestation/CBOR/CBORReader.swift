/// The decoding state of one ``CBORDecoder`` call: the input, a cursor and the item count so far.
///
/// Every length read from the input is checked against the bytes that remain before it is used (so a declared
/// length of 2^64 − 1 costs nothing), and every array or map count against the remaining bytes too (each item
/// takes at least one byte), so nothing is allocated for what the input cannot hold.
struct CBORReader {
    let bytes: [UInt8]
    var index: Int
    let limits: CBORLimits
    private var items = 0

    init(bytes: [UInt8], index: Int, limits: CBORLimits) {
        self.bytes = bytes
        self.index = index
        self.limits = limits
    }

    private static let breakCode: UInt8 = 0xFF

    var remaining: Int { bytes.count - index }

    mutating func item(depth: Int) throws(CBORError) -> CBOR {
        let start = index
        guard depth <= limits.maxDepth else { throw CBORError(.tooDeep, at: start) }
        try count(at: start)
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        switch major {
        case 0:
            return .unsigned(try argument(info, at: start))
        case 1:
            return .negative(try argument(info, at: start))
        case 2:
            return .bytes(info == 31 ? try chunks(major: 2, at: start) : try take(try length(info, at: start), at: start))
        case 3:
            let raw = info == 31 ? try chunks(major: 3, at: start) : try take(try length(info, at: start), at: start)
            return .text(try text(raw, at: start))
        case 4:
            return .array(try array(info, depth: depth, at: start))
        case 5:
            return .map(try map(info, depth: depth, at: start))
        case 6:
            throw CBORError(.unsupportedTag, at: start)
        default:
            return try simple(info, at: start)
        }
    }

    private mutating func count(at offset: Int) throws(CBORError) {
        items += 1
        guard items <= limits.maxItems else { throw CBORError(.tooManyItems, at: offset) }
    }

    private mutating func byte() throws(CBORError) -> UInt8 {
        guard index < bytes.count else { throw CBORError(.truncated, at: index) }
        defer { index += 1 }
        return bytes[index]
    }

    /// The head's argument (§3): the value itself below 24, else the 1, 2, 4 or 8 big-endian bytes that follow.
    private mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
        let size: Int
        switch info {
        case 0..<24: return UInt64(info)
        case 24: size = 1
        case 25: size = 2
        case 26: size = 4
        case 27: size = 8
        default: throw CBORError(.malformedHead, at: start)
        }
        guard remaining >= size else { throw CBORError(.truncated, at: start) }
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(bytes[index + offset]) }
        index += size
        return value
    }

    /// A definite length, known to fit in what remains of the input.
    private mutating func length(_ info: UInt8, at start: Int) throws(CBORError) -> Int {
        let value = try argument(info, at: start)
        guard value <= UInt64(remaining) else { throw CBORError(.truncated, at: start) }
        return Int(value)
    }

    private mutating func take(_ count: Int, at start: Int) throws(CBORError) -> [UInt8] {
        guard count <= remaining else { throw CBORError(.truncated, at: start) }
        defer { index += count }
        return Array(bytes[index..<(index + count)])
    }

    /// An indefinite-length string's chunks (§3.2.3), joined; each must be a definite string of `major` type.
    private mutating func chunks(major: UInt8, at start: Int) throws(CBORError) -> [UInt8] {
        var joined: [UInt8] = []
        while true {
            let chunkStart = index
            let initial = try byte()
            if initial == Self.breakCode { return joined }
            guard initial >> 5 == major, initial & 0x1F != 31 else { throw CBORError(.invalidChunk, at: chunkStart) }
            try count(at: chunkStart)
            let chunk = try take(try length(initial & 0x1F, at: chunkStart), at: chunkStart)
            // Each text chunk must be valid UTF-8 on its own (§3.2.3): a character may not straddle two.
            if major == 3 { _ = try text(chunk, at: chunkStart) }
            joined += chunk
        }
    }

    private func text(_ raw: [UInt8], at start: Int) throws(CBORError) -> String {
        guard let text = String(validating: raw, as: UTF8.self) else { throw CBORError(.invalidUTF8, at: start) }
        return text
    }

    private mutating func isAtBreak() throws(CBORError) -> Bool {
        guard index < bytes.count else { throw CBORError(.truncated, at: index) }
        guard bytes[index] == Self.breakCode else { return false }
        index += 1
        return true
    }

    private mutating func array(_ info: UInt8, depth: Int, at start: Int) throws(CBORError) -> [CBOR] {
        var elements: [CBOR] = []
        if info == 31 {
            while try !isAtBreak() { elements.append(try item(depth: depth + 1)) }
            return elements
        }
        // Each element takes at least one byte.
        let count = try length(info, at: start)
        elements.reserveCapacity(min(count, limits.maxItems))
        for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
        return elements
    }

    private mutating func map(_ info: UInt8, depth: Int, at start: Int) throws(CBORError) -> [CBOR.Pair] {
        var pairs: [CBOR.Pair] = []
        var keys: Set<CBOR> = []
        func add(_ key: CBOR, _ value: CBOR, at offset: Int) throws(CBORError) {
            guard keys.insert(key).inserted else { throw CBORError(.duplicateKey, at: offset) }
            pairs.append(CBOR.Pair(key, value))
        }
        if info == 31 {
            while try !isAtBreak() {
                let keyStart = index
                let key = try item(depth: depth + 1)
                if index < bytes.count, bytes[index] == Self.breakCode { throw CBORError(.oddMapLength, at: index) }
                try add(key, try item(depth: depth + 1), at: keyStart)
            }
            return pairs
        }
        // Each pair takes at least two bytes.
        let count = try length(info, at: start)
        guard count <= remaining / 2 else { throw CBORError(.truncated, at: start) }
        pairs.reserveCapacity(min(count, limits.maxItems))
        for _ in 0..<count {
            let keyStart = index
            let key = try item(depth: depth + 1)
            try add(key, try item(depth: depth + 1), at: keyStart)
        }
        return pairs
    }

    /// Major type 7 (§3.3): false, true, null, undefined and floats; other simple values and a stray break refused.
    private mutating func simple(_ info: UInt8, at start: Int) throws(CBORError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 25: return .float(Self.half(UInt16(truncatingIfNeeded: try argument(info, at: start))))
        case 26: return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: try argument(info, at: start)))))
        case 27: return .float(Double(bitPattern: try argument(info, at: start)))
        case 28...30: throw CBORError(.malformedHead, at: start)
        case 31: throw CBORError(.unexpectedBreak, at: start)
        default: throw CBORError(.unsupportedSimpleValue, at: start)
        }
    }

    /// IEEE 754 binary16 (RFC 8949 Appendix D) widened to Double.
    static func half(_ bits: UInt16) -> Double {
        let sign: FloatingPointSign = bits & 0x8000 != 0 ? .minus : .plus
        let exponent = Int(bits >> 10 & 0x1F)
        let mantissa = Double(bits & 0x3FF)
        switch exponent {
        case 0: return Double(sign: sign, exponent: -24, significand: mantissa)
        case 31: return mantissa == 0 ? (sign == .minus ? -.infinity : .infinity) : .nan
        default: return Double(sign: sign, exponent: exponent - 25, significand: 1024 + mantissa)
        }
    }
}
