/// Android application ids (`applicationId`, the package name Play knows an app by).
/// Rules: at least two segments separated by dots, each starting with an ASCII letter and continuing with letters,
/// digits or underscores; at most 255 characters (https://developer.android.com/build/configure-app-module#set-application-id).
public enum PackageName {
    public static let maxLength = 255

    /// What a valid package name looks like, for messages.
    public static let expectation =
        "an Android application id: two or more segments separated by dots, each starting with a letter and using only letters, digits and _ (e.g. com.example.app), at most 255 characters"

    public static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maxLength else { return false }
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return false }
        for segment in segments {
            guard let first = segment.utf8.first, isLetter(first) else { return false }
            for b in segment.utf8.dropFirst() where !(isLetter(b) || isDigit(b) || b == UInt8(ascii: "_")) {
                return false
            }
        }
        return true
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
}
