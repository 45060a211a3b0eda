import Mustache
import Testing

@Suite struct SpecTests {
    static let cases = SpecCase.all()

    @Test func loadsEverySpecCase() {
        #expect(Self.cases.count == 163)
        #expect(Set(Self.cases.map(\.file)).count == SpecCase.files.count)
    }

    @Test(arguments: cases)
    func spec(_ test: SpecCase) throws {
        var sources = test.partials
        let main = "\u{0}main"
        sources[main] = test.template
        let library = try TemplateLibrary(templates: sources)
        let rendered = try library.render(main, test.data)
        #expect(rendered == test.expected, "\(test.desc)\ntemplate: \(test.template.debugDescription)")
    }
}
