import Glibc
import JSON

/// The byte reader behind `VerdictBatch.parse(body:now:)`; each method returns nil as soon as the input leaves the
/// shape it handles.
struct VerdictBatchReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let now: Int64
    var index = 0
    /// Strings made so far in this batch with the bytes they came from: the same package, digest or reason recurs
    /// in most verdicts of a batch, and is then made once.
    var interned: [(bytes: UnsafeBufferPointer<UInt8>, value: String)] = []
    /// Certificate digests as sent, with their normalized form.
    var digests: [(bytes: UnsafeBufferPointer<UInt8>, value: String)] = []
    /// App ids that were valid.
    var appIDs: [UnsafeBufferPointer<UInt8>] = []

    /// The most strings of each kind kept per batch (each lookup compares against all of them).
    static let maxInterned = 32

    init(bytes: UnsafeBufferPointer<UInt8>, now: Int64) {
        self.bytes = bytes
        self.now = now
    }

    /// `{"verdicts": [ … ]}` with nothing else.
    mutating func batch() -> [TrafficVerdict]? {
        guard take(UInt8(ascii: "{")), let key = string(), equal(key, "verdicts"), take(UInt8(ascii: ":")),
              take(UInt8(ascii: "[")) else { return nil }
        var verdicts: [TrafficVerdict] = []
        verdicts.reserveCapacity(VerdictBatch.maxVerdicts)
        repeat {
            guard verdicts.count < VerdictBatch.maxVerdicts, let v = verdict() else { return nil }
            verdicts.append(v)
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")), take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        return index == bytes.count ? verdicts : nil
    }

    /// One verdict object whose members are each known, present at most once, and valid.
    mutating func verdict() -> TrafficVerdict? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var at: Int64?
        var platform: String?, provider: String?, status: String?
        var reasons: [String]?
        var observed: [String: String]?
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
            if equal(key, "at") {
                guard at == nil, let text = string(), let t = Timestamp.parse(utf8: text),
                      t >= now - VerdictBatch.maxAge, t <= now + VerdictBatch.maxSkew else { return nil }
                at = t
            } else if equal(key, "platform") {
                guard platform == nil, let value = oneOf(VerdictBatch.platforms) else { return nil }
                platform = value
            } else if equal(key, "provider") {
                guard provider == nil, let value = oneOf(VerdictBatch.providers) else { return nil }
                provider = value
            } else if equal(key, "status") {
                guard status == nil, let value = oneOf(VerdictBatch.statuses) else { return nil }
                status = value
            } else if equal(key, "reasons") {
                guard reasons == nil, let value = reasonList() else { return nil }
                reasons = value
            } else if equal(key, "observed") {
                guard observed == nil, let value = observedObject() else { return nil }
                observed = value
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let at, let platform, let provider, let status else { return nil }
        return TrafficVerdict(at: at, platform: platform, provider: provider, status: status, reasons: reasons ?? [], observed: observed ?? [:])
    }

    /// A string equal to one of `allowed`, answered as that element (no new String).
    mutating func oneOf(_ allowed: [String]) -> String? {
        guard let text = string() else { return nil }
        return allowed.first { equal(text, $0) }
    }

    /// `null` or an array of at most 20 reason names (1 to 100 bytes), repeats dropped.
    mutating func reasonList() -> [String]? {
        if literalNull() { return [] }
        guard take(UInt8(ascii: "[")) else { return nil }
        var reasons: [String] = []
        if take(UInt8(ascii: "]")) { return reasons }
        var count = 0
        repeat {
            count += 1
            guard count <= 20, let text = string(), !text.isEmpty, text.count <= 100 else { return nil }
            let reason = intern(text)
            if !reasons.contains(reason) { reasons.append(reason) }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? reasons : nil
    }

    /// `null` or an object of known observed fields, each valid and present once.
    mutating func observedObject() -> [String: String]? {
        if literalNull() { return [:] }
        guard take(UInt8(ascii: "{")) else { return nil }
        if take(UInt8(ascii: "}")) { return [:] }
        var out = [String: String](minimumCapacity: 7)  // every observed field, without growing
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
            let field: String
            let value: String
            if equal(key, "certificateDigest") {
                guard let text = string(), let digest = digest(text) else { return nil }
                (field, value) = ("certificateDigest", digest)
            } else if equal(key, "appId") {
                guard let text = string(), let id = appID(text) else { return nil }
                (field, value) = ("appId", id)
            } else if equal(key, "attestationEnvironment") {
                guard let text = oneOf(["production", "development"]) else { return nil }
                (field, value) = ("attestationEnvironment", text)
            } else if equal(key, "deviceRecognitionVerdict") {
                guard let list = joinedStrings() else { return nil }
                (field, value) = ("deviceRecognitionVerdict", list)
            } else if let name = VerdictBatch.stringFields.first(where: { equal(key, $0) }) {
                guard let text = string(), !text.isEmpty, text.count <= 255 else { return nil }
                (field, value) = (name, intern(text))
            } else {
                return nil
            }
            guard out.updateValue(value, forKey: field) == nil else { return nil }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? out : nil
    }

    /// An array of strings, joined by commas (how `deviceRecognitionVerdict` is kept).
    mutating func joinedStrings() -> String? {
        guard take(UInt8(ascii: "[")) else { return nil }
        if take(UInt8(ascii: "]")) { return "" }
        var parts: [String] = []
        repeat {
            guard let text = string() else { return nil }
            parts.append(intern(text))
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? parts.joined(separator: ",") : nil
    }

    /// The normalized form of a certificate digest, made once per distinct spelling in the batch.
    mutating func digest(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        if let known = digests.first(where: { equal($0.bytes, text) }) { return known.value }
        guard let parsed = CertificateDigest.parse(String(decoding: text, as: UTF8.self)) else { return nil }
        let value = CertificateDigest.format(parsed)
        if digests.count < Self.maxInterned { digests.append((text, value)) }
        return value
    }

    /// A valid `TEAMID.bundleId`.
    mutating func appID(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        let known = appIDs.contains { equal($0, text) }
        let value = intern(text)
        guard known || AppleAppID.isValid(value) else { return nil }
        if !known && appIDs.count < Self.maxInterned { appIDs.append(text) }
        return value
    }

    /// The String of `text`, shared with earlier equal ones of the batch.
    mutating func intern(_ text: UnsafeBufferPointer<UInt8>) -> String {
        if let known = interned.first(where: { equal($0.bytes, text) }) { return known.value }
        let value = String(decoding: text, as: UTF8.self)
        if interned.count < Self.maxInterned { interned.append((text, value)) }
        return value
    }

    // MARK: - Tokens

    /// A string's bytes between its quotes, after optional whitespace; nil at an escape, a control character, a
    /// byte past 0x7E (DEL and UTF-8 are left to the general parser), or anything that is not a string.
    mutating func string() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                index = i + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<i])
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b > 0x7E { return nil }
            i += 1
        }
        return nil
    }

    /// Takes `byte` after optional whitespace, if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Takes `null` after optional whitespace, if it is next.
    mutating func literalNull() -> Bool {
        skipWhitespace()
        guard index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
              bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") else { return false }
        index += 4
        return true
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Byte equality through `memcmp`, so that a batch crafted with many long strings alike but for their last byte
    /// costs little more to compare against the interned ones.
    func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }  // both empty
        return memcmp(pa, pb, a.count) == 0
    }

    func equal(_ a: UnsafeBufferPointer<UInt8>, _ s: String) -> Bool {
        var s = s
        return s.withUTF8 { equal(a, $0) }
    }
}
