import JSON

/// A policy's `minimumVersionCode` (Play Integrity's and Key Attestation's): an object of package name → the lowest
/// version code accepted, at most 100 entries; `null` for none.
enum VersionCodeFields {
    /// The most packages a policy names.
    static let maxEntries = 100

    /// Reads `value` into package name → lowest version code (empty for `null`); nil with every fault added to
    /// `errors` by pointer.
    static func parse(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> [String: Int64]? {
        if value.isNull { return [:] }
        guard let entries = value.members, entries.count <= maxEntries else {
            errors.add(pointer, "must be an object of package name → lowest version code (at most \(maxEntries)), or null for none")
            return nil
        }
        let before = errors.errors.count
        var codes: [String: Int64] = [:]
        for entry in entries {
            let at = Pointer.join(pointer, entry.key)
            guard PackageName.isValid(entry.key) else { errors.add(at, "must be named by a package name such as com.example.app"); continue }
            guard let code = entry.value.integer, code >= 1, code <= 2_100_000_000 else {
                errors.add(at, "must be a version code, a whole number from 1 to 2100000000")
                continue
            }
            codes[entry.key] = Int64(code)
        }
        return errors.errors.count == before ? codes : nil
    }
}
