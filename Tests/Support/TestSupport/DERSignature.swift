/// The DER `SEQUENCE { INTEGER r, INTEGER s }` of a raw 64-byte ECDSA P-256 signature `r ‖ s` (minimal integers),
/// built by hand so that tests can present the other encoding than the one expected; nil for another length.
public func derSignature(raw: [UInt8]) -> [UInt8]? {
    guard raw.count == 64 else { return nil }
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.first.map({ $0 & 0x80 != 0 }) ?? true { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}
