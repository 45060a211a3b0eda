import Foundation
import Mustache
import Testing
import TestSupport

@Suite struct TemplateLibraryTests {
    @Test func loadsNestedFoldersAndRendersParentsAndPartialsAcrossFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("layouts/main.mustache", """
            <html>
              <title>{{$title}}Gatehouse{{/title}}</title>
              {{>partials/nav}}
              <main>
                {{$content}}
                {{/content}}
              </main>
            </html>

            """)
        try directory.write("partials/nav.mustache", "<nav>{{#user}}{{name}}{{/user}}</nav>\n")
        try directory.write("partials/rows/environment.mustache", "<li>{{name}}</li>\n")
        try directory.write("pages/environments.mustache", """
            {{<layouts/main}}
            {{$title}}Environments{{/title}}
            {{$content}}
            <ul>
              {{#environments}}
              {{>partials/rows/environment}}
              {{/environments}}
            </ul>
            {{/content}}
            {{/layouts/main}}

            """)
        try directory.write("notes.txt", "{{#not a template")
        let library = try TemplateLibrary(directory: directory.path)
        #expect(library.names == ["layouts/main", "pages/environments", "partials/nav", "partials/rows/environment"])
        let page = try library.render("pages/environments", [
            "user": ["name": "Ada & co"],
            "environments": [["name": "prod"], ["name": "<staging>"]],
        ])
        #expect(page == """
            <html>
              <title>Environments</title>
              <nav>Ada &amp; co</nav>
              <main>
                <ul>
                  <li>prod</li>
                  <li>&lt;staging&gt;</li>
                </ul>
              </main>
            </html>

            """)
        #expect(try library.renderBytes("pages/environments", [:]) == Array(try library.render("pages/environments", [:]).utf8))
    }

    @Test func aSyntaxErrorNamesTheFileLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("pages/ok.mustache", "fine")
        try directory.write("pages/env.mustache", "<h1>{{title}}</h1>\n<ul>\n  {{#apps}}\n")
        let error = try #require(throws: TemplateError.self) { try TemplateLibrary(directory: directory.path) }
        #expect(error.description == "pages/env.mustache:4:1: section \"apps\" opened at 3:3 is never closed")
    }

    @Test func unconditionalPartialCycleIsALoadErrorNamingTheChain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.mustache", "A\n{{>b}}")
        try directory.write("b.mustache", "B {{>c}}")
        try directory.write("c.mustache", "C\n\n  {{>a}}\n")
        let error = try #require(throws: TemplateError.self) { try TemplateLibrary(directory: directory.path) }
        #expect(error.file == "c.mustache" && error.line == 3 && error.column == 3)
        #expect(error.message.contains("a → b → c → a"))
    }

    @Test func parentCycleIsALoadError() throws {
        let error = try #require(throws: TemplateError.self) {
            try TemplateLibrary(templates: ["x": "{{<y}}{{/y}}", "y": "{{<x}}{{/x}}"])
        }
        #expect(error.message.contains("x → y → x"))
    }

    @Test func dataDrivenRecursionStopsAtTheDepthLimitNamingTheChain() throws {
        let library = try TemplateLibrary(
            templates: ["page": "{{>node}}", "node": "{{#t}}\n  {{>leaf}}\n{{/t}}", "leaf": "{{#t}}{{>node}}{{/t}}"],
            limits: TemplateLimits(maxPartialDepth: 10))
        let error = try #require(throws: TemplateError.self) { try library.render("page", ["t": true]) }
        #expect(error.message.contains("node → leaf → node") || error.message.contains("leaf → node → leaf"))
        #expect(error.line > 0)
        // The same templates end when the data ends.
        #expect(try library.render("page", ["t": false]) == "")
    }

    @Test func multiplyingWorkStopsAtTheStepLimit() throws {
        let source = String(repeating: "{{#list}}", count: 30) + "x" + String(repeating: "{{/list}}", count: 30)
        let library = try TemplateLibrary(templates: ["page": source], limits: TemplateLimits(maxRenderSteps: 100_000))
        let error = try #require(throws: TemplateError.self) { try library.render("page", ["list": [1, 2]]) }
        #expect(error.message.contains("100000 steps"))
        let output = try #require(throws: TemplateError.self) {
            try TemplateLibrary(templates: ["page": source], limits: TemplateLimits(maxOutputBytes: 1000))
                .render("page", ["list": [1, 2]])
        }
        #expect(output.message.contains("1000 bytes"))
    }

    @Test func sectionsNestingPastTheDepthLimitStopWithAnError() throws {
        // 90 sections per level, the template including itself inside them: 90 open sections per partial level.
        let source = String(repeating: "{{#a}}", count: 90) + "{{>node}}" + String(repeating: "{{/a}}", count: 90)
        let shallow = try TemplateLibrary(templates: ["node": source], limits: TemplateLimits(maxRenderDepth: 500))
        let error = try #require(throws: TemplateError.self) { try shallow.render("node", ["a": true]) }
        #expect(error.message.contains("depth 500"))
        // However high the depth limit, at most `4096` sections are open at once (the partial limit, 60 levels of
        // 90 sections, would come later): an error, not a crash.
        let deep = try TemplateLibrary(
            templates: ["node": source],
            limits: TemplateLimits(maxPartialDepth: 60, maxRenderSteps: 1 << 40, maxRenderDepth: 1_000_000))
        let capped = try #require(throws: TemplateError.self) { try deep.render("node", ["a": true]) }
        #expect(capped.message.contains("at nesting depth 4"))
        #expect(!capped.message.contains("recurses"))
        #expect(try deep.render("node", ["a": false]) == "")
        // A limit below zero stops the render at once.
        let none = try TemplateLibrary(templates: ["node": source], limits: TemplateLimits(maxRenderDepth: -5))
        #expect(throws: TemplateError.self) { try none.render("node", ["a": true]) }
    }

    @Test func aFileLinkingOutsideTheDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        defer { directory.remove(); outside.remove() }
        try outside.write("secret.mustache", "secret")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/leak.mustache",
                                                   withDestinationPath: outside.path + "/secret.mustache")
        let error = try #require(throws: TemplateError.self) { try TemplateLibrary(directory: directory.path) }
        #expect(error.file == "leak.mustache" && error.message.contains("outside the template directory"))
    }

    @Test func aMissingDirectoryIsAnError() throws {
        let error = try #require(throws: TemplateError.self) {
            try TemplateLibrary(directory: "/nonexistent/templates-\(UUID().uuidString)")
        }
        #expect(error.message.contains("does not exist"))
    }

    @Test func unknownPartialRendersEmptyAndUnknownTemplateThrows() throws {
        let library = try TemplateLibrary(templates: ["page": "[{{>nowhere}}]"])
        #expect(try library.render("page", [:]) == "[]")
        let error = try #require(throws: TemplateError.self) { try library.render("pages/missing", [:]) }
        #expect(error.message.contains("no template named \"pages/missing\""))
    }

    @Test func rendersConcurrentlyFromManyTasks() async throws {
        let library = try TemplateLibrary(templates: ["row": "{{#items}}<{{.}}>{{/items}}"])
        let results = await withTaskGroup(of: String?.self) { group in
            for task in 0..<8 {
                group.addTask { try? library.render("row", ["items": [.int(task), .int(task + 1)]]) }
            }
            var results: [String?] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(Set(results.compactMap { $0 }) == Set((0..<8).map { "<\($0)><\($0 + 1)>" }))
    }
}
