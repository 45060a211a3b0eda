import Mustache
import Testing

/// A malformed template and where and what its error must say.
struct MalformedTemplate: Sendable, CustomTestStringConvertible {
    let source: String
    let line: Int
    let column: Int
    let mentions: [String]

    var testDescription: String { source.debugDescription }
}

@Suite struct TemplateErrorTests {
    static let malformed: [MalformedTemplate] = [
        .init(source: "<ul>\n{{#apps}}\n  <li>{{name}}</li>\n", line: 4, column: 1,
              mentions: ["section \"apps\" opened at 2:1 is never closed"]),
        .init(source: "a\n  {{#a}}{{/b}}", line: 2, column: 9,
              mentions: ["closing tag \"b\"", "section \"a\" opened at 2:3"]),
        .init(source: "{{^list}}\n{{/lists}}", line: 2, column: 1,
              mentions: ["\"lists\"", "inverted section \"list\" opened at 1:1"]),
        .init(source: "x\n\n   {{/x}}", line: 3, column: 4, mentions: ["closing tag \"x\" has no open section"]),
        .init(source: "hello {{name", line: 1, column: 7, mentions: ["never closed", "}}"]),
        .init(source: "x\n{{{name}}", line: 2, column: 1, mentions: ["never closed", "}}}"]),
        .init(source: "a {{}}", line: 1, column: 3, mentions: ["empty tag"]),
        .init(source: "\n\t{{# }}", line: 2, column: 2, mentions: ["no name"]),
        .init(source: "{{a b}}", line: 1, column: 1, mentions: ["\"a b\" contains whitespace"]),
        .init(source: "{{=<% =}}", line: 1, column: 1, mentions: ["set-delimiter", "{{=<% %>=}}"]),
        .init(source: "ok\n{{=<% %>}}", line: 2, column: 1, mentions: ["does not end with '='"]),
        .init(source: "<%x%>\n{{=<% %>=}}\n<%#s%>\n<%/t%>", line: 4, column: 1,
              mentions: ["\"t\"", "section \"s\" opened at 3:1"]),
        .init(source: "{{$title}}Default", line: 1, column: 18, mentions: ["block \"title\" opened at 1:1"]),
        .init(source: "{{<layout}}\n  {{$a}}\n{{/layout}}", line: 3, column: 1,
              mentions: ["\"layout\"", "block \"a\" opened at 2:3"]),
        .init(source: "é ü {{x", line: 1, column: 5, mentions: ["never closed"]),
    ]

    @Test(arguments: malformed)
    func namesFileLineAndColumn(_ template: MalformedTemplate) throws {
        let error = try #require(throws: TemplateError.self) {
            try TemplateLibrary(templates: ["pages/env": template.source])
        }
        #expect(error.file == "pages/env")
        #expect(error.line == template.line)
        #expect(error.column == template.column)
        for mention in template.mentions { #expect(error.message.contains(mention), "\(error)") }
        #expect(error.description.hasPrefix("pages/env:\(template.line):\(template.column): "))
    }

    @Test func unknownParentIsALoadError() throws {
        let error = try #require(throws: TemplateError.self) {
            try TemplateLibrary(templates: ["page": "x\n  {{<layouts/mian}}{{/layouts/mian}}", "layouts/main": "m"])
        }
        #expect(error.file == "page" && error.line == 2 && error.column == 3)
        #expect(error.message.contains("unknown parent \"layouts/mian\""))
        #expect(error.message.contains("layouts/main"))
    }

    @Test(arguments: ["{{>../secret}}", "{{>/etc/passwd}}", "{{<a/../../b}}{{/a/../../b}}"])
    func namesLeavingTheLibraryAreRefused(_ source: String) throws {
        let error = try #require(throws: TemplateError.self) {
            try TemplateLibrary(templates: ["page": source, "secret": "s"])
        }
        #expect(error.line == 1 && error.column == 1)
        #expect(error.message.contains("leaves the template library"))
    }

    @Test func descriptionReadsFileLineColumnMessage() {
        let error = TemplateError(file: "pages/env.mustache", line: 12, column: 5,
                                  message: "section \"apps\" opened at 8:3 is never closed")
        #expect(error.description == "pages/env.mustache:12:5: section \"apps\" opened at 8:3 is never closed")
        #expect(TemplateError(file: "x", line: 0, column: 0, message: "m").description == "x: m")
    }

    @Test func nestingBeyondTheLimitIsAnError() throws {
        let source = String(repeating: "{{#a}}", count: 5) + String(repeating: "{{/a}}", count: 5)
        let error = try #require(throws: TemplateError.self) {
            try TemplateLibrary(templates: ["deep": source], limits: TemplateLimits(maxNesting: 4))
        }
        #expect(error.line == 1 && error.column == 25)
        #expect(error.message.contains("deeper than 4"))
        #expect(try TemplateLibrary(templates: ["deep": source], limits: TemplateLimits(maxNesting: 5))
            .render("deep", ["a": true]) == "")
    }
}
