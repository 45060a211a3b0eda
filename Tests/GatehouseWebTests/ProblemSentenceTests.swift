@testable import GatehouseWeb
import Testing

/// A problem's detail reads as a sentence, and names from code keep their spelling.
@Suite("Problem details")
struct ProblemSentenceTests {
    @Test(arguments: [
        ("environment not found", "Environment not found."),
        ("apiKey is not one of this server's public keys", "apiKey is not one of this server's public keys."),
        ("Already a sentence.", "Already a sentence."),
        ("", ""),
    ])
    func readsAsASentence(message: String, detail: String) {
        #expect(Problem.sentence(message) == detail)
    }
}
