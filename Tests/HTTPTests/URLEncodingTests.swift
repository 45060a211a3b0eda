import Testing
import HTTP

@Test("percent-decoding", arguments: [
    ("plain", false, "plain"), ("a%20b", false, "a b"), ("a+b", false, "a+b"), ("a+b", true, "a b"),
    ("%2Fetc%2fpasswd", false, "/etc/passwd"), ("caf%C3%A9", false, "café"), ("%e2%82%ac", true, "€"),
    ("", false, ""), ("100%25", false, "100%"), ("%2B", true, "+"),
] as [(String, Bool, String)])
func decodes(_ input: String, plusAsSpace: Bool, expected: String) {
    #expect(URLEncoding.percentDecode(input, plusAsSpace: plusAsSpace) == expected)
    #expect(URLEncoding.percentDecode(input[...], plusAsSpace: plusAsSpace) == expected)
}

@Test("malformed percent-encoding", arguments: ["%", "%2", "a%g0", "%zz", "%C3", "%FF", "%C3%28", "%ED%A0%80"])
func rejectsMalformed(_ input: String) {
    #expect(URLEncoding.percentDecode(input, plusAsSpace: false) == nil)
}

@Test func parsesQueries() {
    let pairs = URLEncoding.parseQuery("a=1&b=two+words&a=%33&&flag&empty=&x=%zz&c=d=e&%C3%A9=%E2%82%AC")
    #expect(pairs.map(\.0) == ["a", "b", "a", "flag", "empty", "c", "é"])
    #expect(pairs.map(\.1) == ["1", "two words", "3", "", "", "d=e", "€"])
    #expect(URLEncoding.parseQuery("").isEmpty)
}
