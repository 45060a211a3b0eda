import Gatehouse
import Testing

@Suite("Checklist: debug tokens in production")
struct ChecklistDebugTokensTests {
    @Test func aProductionEnvironmentWithActiveTokensWarnsNamingThem() throws {
        let configuration = ChecklistConfiguration(kind: "production", activeSecretKeys: 1, activeDebugTokens: ["CI simulator", "QA emulator"])
        let item = try #require(ChecklistFixtures.evaluate(configuration, []).item("debugTokens.production"))
        #expect(item.status == .warn)
        #expect(item.detail.contains("“CI simulator”") && item.detail.contains("“QA emulator”"), "\(item.detail)")
        #expect(item.fix.contains("Revoke"))
    }

    @Test func developmentAndNoTokenAreOk() throws {
        let development = ChecklistConfiguration(kind: "development", activeSecretKeys: 1, activeDebugTokens: ["CI simulator"])
        let inDevelopment = try #require(ChecklistFixtures.evaluate(development, []).item("debugTokens.production"))
        #expect(inDevelopment.status == .ok)
        #expect(inDevelopment.detail.contains("“CI simulator”"))
        let none = ChecklistConfiguration(kind: "production", activeSecretKeys: 1)
        let item = try #require(ChecklistFixtures.evaluate(none, []).item("debugTokens.production"))
        #expect(item.status == .ok)
        #expect(item.fix.isEmpty)
    }
}
