extension Base64 {
    /// Decodes base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2) in its one canonical spelling;
    /// nil for any other character (`+`, `/`, `=`, whitespace), a length no encoding produces, or non-zero unused bits.
    public static func decodeURLSafeUnpadded(_ text: some Collection<UInt8>) -> [UInt8]? {
        // One copy into an array first: a caller in another module reaches this unspecialized, and iterating the
        // generic collection byte by byte through its witness table cost more than the rest of a token's decoding.
        let characters = Array(text)
        // 0x40: a character of the standard alphabet only, or one of neither (padding among them).
        guard let (bytes, seen) = decodeQuanta(characters, count: characters.count), seen & 0x40 == 0 else { return nil }
        return bytes
    }
}
