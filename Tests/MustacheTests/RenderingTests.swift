import Foundation
import Mustache
import Testing

@Suite struct RenderingTests {
    private func render(_ template: String, _ value: MustacheValue) throws -> String {
        try TemplateLibrary(templates: ["t": template]).render("t", value)
    }

    @Test(arguments: [
        (MustacheValue.int(85), "85"), (.int(-1204), "-1204"), (.int(0), "0"), (.int(Int.min), "\(Int.min)"),
        (.double(1.21), "1.21"), (.double(2.0), "2"), (.double(-0.5), "-0.5"), (.double(1e20), "1e+20"),
        (.bool(true), "true"), (.bool(false), "false"), (.null, ""), (.array([1]), ""), (.dictionary([:]), ""),
    ])
    func interpolatesScalars(_ value: MustacheValue, _ expected: String) throws {
        #expect(try render("{{v}}", ["v": value]) == expected)
    }

    @Test func escapesTheFiveHTMLCharactersUnlessRaw() throws {
        let value: MustacheValue = ["v": "a&b<c>d\"e'f — long enough to take the eight-byte path: <<>>&&''\"\"ok"]
        #expect(try render("{{v}}", value)
            == "a&amp;b&lt;c&gt;d&quot;e&#39;f — long enough to take the eight-byte path: "
            + "&lt;&lt;&gt;&gt;&amp;&amp;&#39;&#39;&quot;&quot;ok")
        #expect(try render("{{{v}}}|{{& v}}", ["v": "<&>"]) == "<&>|<&>")
    }

    /// Every length from 0 to 48 (short strings, word loops, tails), with the five characters at every position,
    /// and characters the word test marks but that need no escaping (`#`) or lie next to those it looks for.
    @Test(arguments: 0...48)
    func escapesLikeAPlainReplacementAtEveryLengthAndPosition(_ length: Int) throws {
        let specials: [Character] = ["&", "<", ">", "\"", "'", "#", "=", "?", "%"]
        var seed = UInt64(length) &* 0x9E37_79B9_7F4A_7C15 | 1
        for position in -1..<length {
            var characters = (0..<length).map { Character(UnicodeScalar(UInt8(97 + ($0 * 7) % 26))) }
            if position >= 0 {
                seed ^= seed << 13
                seed ^= seed >> 7
                seed ^= seed << 17
                characters[position] = specials[Int(seed % UInt64(specials.count))]
                if length > 3 { characters[(position * 3 + 1) % length] = "é" }
            }
            let text = String(characters)
            let expected = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "'", with: "&#39;")
            #expect(try render("[{{v}}]", ["v": .string(text)]) == "[" + expected + "]", "\(text)")
            #expect(try render("[{{{v}}}]", ["v": .string(text)]) == "[" + text + "]")
        }
    }

    @Test(arguments: [
        (MustacheValue.bool(false), false), (.null, false), (.string(""), false), (.array([]), false),
        (.bool(true), true), (.int(0), true), (.string("x"), true), (.dictionary([:]), true), (.array([nil]), true),
    ])
    func sectionsFollowTruthiness(_ value: MustacheValue, _ shown: Bool) throws {
        #expect(value.isTruthy == shown)
        #expect(try render("{{#v}}yes{{/v}}{{^v}}no{{/v}}", ["v": value]) == (shown ? "yes" : "no"))
    }

    @Test func missingNamesRenderEmptyAndNeverThrow() throws {
        #expect(try render("[{{a}}{{a.b.c}}{{#a}}x{{/a}}{{{a.b}}}]", [:]) == "[]")
        #expect(try render("[{{a.b}}]", ["a": "not a dictionary"]) == "[]")
        #expect(try render("[{{.}}]", "root") == "[root]")
    }

    @Test func literalsBuildTheValueTree() {
        let value: MustacheValue = ["name": "x", "count": 3, "ratio": 0.5, "on": true, "none": nil, "apps": ["a", 1]]
        #expect(value == .dictionary([
            "name": .string("x"), "count": .int(3), "ratio": .double(0.5), "on": .bool(true), "none": .null,
            "apps": .array([.string("a"), .int(1)]),
        ]))
    }

    /// Keys compare as Swift strings do (canonical equivalence), whatever their bytes: the fingerprint of a
    /// non-ASCII key never rules a match out.
    @Test(arguments: [
        ("caf\u{E9}", "cafe\u{301}"), ("cafe\u{301}", "caf\u{E9}"), ("\u{212A}", "K"), ("K", "\u{212A}"),
        ("ключ", "ключ"), ("a-much-longer-key-than-fifteen-bytes", "a-much-longer-key-than-fifteen-bytes"),
    ])
    func findsKeysEqualAsStrings(_ tagKey: String, _ dataKey: String) throws {
        let value = MustacheValue.dictionary(["other": "no", dataKey: "yes"])
        #expect(try render("{{\(tagKey)}}|{{#\(tagKey)}}in{{/\(tagKey)}}", value) == "yes|in")
        let literal: MustacheValue = ["other": "no", dataKey: "first", dataKey: "yes"]
        #expect(try render("{{\(tagKey)}}", literal) == "yes")
        #expect(literal == value)
    }

    @Test func dictionariesCompareAsMaps() {
        #expect(MustacheValue.dictionary(["a": 1, "b": 2]) == ["b": 2, "a": 1])
        #expect(MustacheValue.dictionary(["a": 1, "b": 2]) != ["a": 1, "b": 3])
        #expect(MustacheValue.dictionary(["a": 1]) != ["a": 1, "b": 2])
        #expect(MustacheValue.string("1") != .int(1))
    }

    @Test func standalonePartialIndentsEveryNonEmptyLineButNotValues() throws {
        let library = try TemplateLibrary(templates: [
            "page": "<ul>\n  {{>item}}\n</ul>\n",
            "item": "<li>\n{{{v}}}\n\n</li>\n",
        ])
        #expect(try library.render("page", ["v": "a\nb"]) == "<ul>\n  <li>\n  a\nb\n\n  </li>\n</ul>\n")
    }

    @Test func findsKeysWhereverDictionariesOfAListHoldThem() throws {
        // Lookups try first where the key was found last: keys in other orders, missing keys and a key past the
        // 256th member must all still be found (or not) by name.
        var wide: [String: MustacheValue] = [:]
        for index in 0..<300 { wide["k\(index)"] = .int(index) }
        let list: MustacheValue = [
            ["a": 1, "b": 2], ["b": 3, "a": 4], ["a": 5], ["c": 6, "b": 7], .dictionary(wide), ["k299": "last"],
        ]
        let library = try TemplateLibrary(templates: ["page": "{{#list}}{{a}}-{{b}}-{{k299}}-{{k44}};{{/list}}"])
        #expect(try library.render("page", ["list": list]) == "1-2--;4-3--;5---;-7--;--299-44;--last-;")
    }

    /// A tree built in a function renders after its builder's locals are gone, and output far past the first
    /// buffer (sized 4 KiB before any render) comes out whole from `renderBytes` and from `render(into:)`.
    @Test func rendersLargeOutputFromATreeThatOutlivedItsBuilder() throws {
        func build() -> MustacheValue {
            var rows: [MustacheValue] = []
            for index in 0..<2000 {
                rows.append(["name": .string("row \(index) <long enough to live apart>"), "tags": ["x", .string("t\(index)")]])
            }
            return ["rows": .array(rows)]
        }
        let library = try TemplateLibrary(templates: ["t": "{{#rows}}{{name}}:{{#tags}}{{.}},{{/tags}}\n{{/rows}}"])
        let value = build()
        let expected = (0..<2000).map { "row \($0) &lt;long enough to live apart&gt;:x,t\($0),\n" }.joined()
        #expect(try library.render("t", value) == expected)
        var buffer = Array("head:".utf8)
        try library.render("t", value, into: &buffer)
        #expect(buffer == Array(("head:" + expected).utf8))
    }

    @Test func aParsedTemplateRendersManyTimesTheSame() throws {
        let library = try TemplateLibrary(templates: ["t": "{{#list}}{{n}},{{/list}}"])
        let value: MustacheValue = ["list": [["n": 1], ["n": 2]]]
        #expect(try library.render("t", value) == "1,2,")
        #expect(try library.render("t", value) == "1,2,")
    }
}
