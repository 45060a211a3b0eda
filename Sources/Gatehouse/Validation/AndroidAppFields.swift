import JSON

/// Checks of one `androidApps[]` element: `packageName`, `certificateDigests`, `outsidePlay`.
public enum AndroidAppFields {
    public static let maxDigests = 20

    /// The validated app, or nil with errors added under `pointer`.
    public static func parse(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> AndroidApp? {
        guard let members = value.members else {
            errors.add(pointer, "must be an object with packageName, certificateDigests and outsidePlay")
            return nil
        }
        let before = errors.errors.count
        var packageName: String?
        var digests: [[UInt8]] = []
        var outsidePlay = false
        for member in members {
            let at = Pointer.join(pointer, member.key)
            switch member.key {
            case "packageName":
                if let name = member.value.string, PackageName.isValid(name) {
                    packageName = name
                } else {
                    errors.add(at, "must be \(PackageName.expectation)")
                }
            case "certificateDigests":
                if let list = member.value.array {
                    digests = self.digests(list.map { $0.string }, at: at, errors: &errors)
                } else if !member.value.isNull {
                    errors.add(at, "must be an array of \(CertificateDigest.expectation)")
                }
            case "outsidePlay":
                if let b = member.value.bool { outsidePlay = b } else if !member.value.isNull { errors.add(at, "must be true or false") }
            default:
                errors.add(at, "is not a field of an Android app (expected packageName, certificateDigests, outsidePlay)")
            }
        }
        if value["packageName"] == nil { errors.add(Pointer.join(pointer, "packageName"), "is required: \(PackageName.expectation)") }
        guard errors.errors.count == before, let packageName else { return nil }
        return AndroidApp(packageName: packageName, certificateDigests: digests, outsidePlay: outsidePlay)
    }

    /// Normalizes digests (nil entries are non-strings), collapsing duplicates after normalization.
    public static func digests(_ texts: [String?], at pointer: String, errors: inout FieldErrors) -> [[UInt8]] {
        if texts.count > maxDigests {
            errors.add(pointer, "must list at most \(maxDigests) digests")
            return []
        }
        var out: [[UInt8]] = []
        for (i, text) in texts.enumerated() {
            guard let text, let bytes = CertificateDigest.parse(text) else {
                errors.add(Pointer.join(pointer, i), "must be \(CertificateDigest.expectation)")
                continue
            }
            if !out.contains(bytes) { out.append(bytes) }
        }
        return out
    }
}
