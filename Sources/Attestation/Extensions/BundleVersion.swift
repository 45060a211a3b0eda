/// Bundle versions compared as Apple orders them: dot-separated integers numerically (`4.10` after `4.9`, `4.2` equal
/// to `4.2.0`), and text otherwise.
public enum BundleVersion {
    /// Whether `version` is below `minimum`.
    public static func isBelow(_ version: String, minimum: String) -> Bool {
        if let left = numbers(version), let right = numbers(minimum) {
            for index in 0..<max(left.count, right.count) {
                let a = index < left.count ? left[index] : 0
                let b = index < right.count ? right[index] : 0
                if a != b { return a < b }
            }
            return false
        }
        return version < minimum
    }

    /// The numbers of a dot-separated version (each 1 to 9 digits), or nil.
    public static func numbers(_ version: String) -> [Int]? {
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 8 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 9, part.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        return numbers
    }
}
