import Crypto
import JSON

/// The strict pieces of a JOSE compact serialization (RFC 7515 §7.1, RFC 7516 §7.1) the Play Integrity reader
/// is built from. Each returns nil for anything not exactly as expected.
enum JOSECompact {
    /// Splits `token` at `.` into exactly `count` parts; nil for any other number of parts.
    static func parts(_ token: ArraySlice<UInt8>, count: Int) -> [ArraySlice<UInt8>]? {
        var parts: [ArraySlice<UInt8>] = []
        parts.reserveCapacity(count)
        var start = token.startIndex
        for index in token.indices where token[index] == UInt8(ascii: ".") {
            guard parts.count < count - 1 else { return nil }
            parts.append(token[start..<index])
            start = index + 1
        }
        parts.append(token[start...])
        return parts.count == count ? parts : nil
    }

    /// Decodes base64url without padding (RFC 7515 §2), in its one canonical spelling; nil for any other character,
    /// padding, a length no encoding produces, non-zero unused bits, or a result over `maxBytes`.
    static func base64URL(_ text: ArraySlice<UInt8>, maxBytes: Int) -> [UInt8]? {
        guard text.count / 4 * 3 <= maxBytes else { return nil }
        guard let bytes = Base64.decodeURLSafeUnpadded(text), bytes.count <= maxBytes else { return nil }
        return bytes
    }

    /// Reads a protected header: a JSON object with no repeated member (RFC 7515 §4), no `crit` (we understand no
    /// extension), and `alg` equal to `algorithm`. Returns the members.
    ///
    /// - Throws: ``PlayIntegrityDecodeError`` at `stage`, saying what is wrong with the `name` header.
    static func header(_ part: ArraySlice<UInt8>, maxBytes: Int, algorithm: String, name: String,
                       stage: PlayIntegrityDecodeError.Stage) throws(PlayIntegrityDecodeError) -> [JSON.Member] {
        guard let bytes = base64URL(part, maxBytes: maxBytes) else {
            throw PlayIntegrityDecodeError(stage, "\(name) header is not base64url of at most \(maxBytes) bytes")
        }
        guard let members = (try? JSONParser.parse(bytes))?.members else {
            throw PlayIntegrityDecodeError(stage, "\(name) header is not a JSON object")
        }
        var seen = Set<String>()
        for member in members where !seen.insert(member.key).inserted {
            throw PlayIntegrityDecodeError(stage, "\(name) header repeats a member")
        }
        guard !seen.contains("crit") else {
            throw PlayIntegrityDecodeError(stage, "\(name) header has crit: no extension is understood")
        }
        guard members.first(where: { $0.key == "alg" })?.value.string == algorithm else {
            throw PlayIntegrityDecodeError(stage, "\(name) alg is not \(algorithm), the only one accepted")
        }
        return members
    }
}
