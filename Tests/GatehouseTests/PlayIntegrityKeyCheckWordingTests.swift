import Gatehouse
import Testing

/// What the dashboard says after local keys are saved, from the key check's figures.
@Suite("Key check wording")
struct PlayIntegrityKeyCheckWordingTests {
    static func result(_ tried: Int, _ decrypted: Int, _ verified: Int, _ packages: [String] = []) -> PlayIntegrityKeyCheckResult {
        var result = PlayIntegrityKeyCheckResult()
        result.tried = tried
        result.decrypted = decrypted
        result.verified = verified
        result.packages = packages
        return result
    }

    @Test(arguments: [
        (result(50, 48, 48, ["com.example.app"]), "These keys decrypt 48 of the 50 tokens that failed in the last 24 hours (com.example.app)."),
        (result(50, 0, 0), "They decrypt none of the 50 tokens that failed in the last 24 hours: they are not the keys of com.example.app."),
        (result(3, 3, 3, ["com.example.app"]), "These keys decrypt all 3 tokens that failed in the last 24 hours (com.example.app)."),
        (result(4, 4, 0), "These keys decrypt all 4 tokens that failed in the last 24 hours, but no signature verifies: the verification key is not the one that goes with them."),
        (result(0, 0, 0), "No token has failed to decode in the last 24 hours, so there was nothing to try these keys on yet."),
    ])
    func summary(result: PlayIntegrityKeyCheckResult, expected: String) {
        #expect(result.summary(registeredPackages: ["com.example.app"]) == expected)
    }

    @Test func noAppRegistered() {
        #expect(Self.result(1, 0, 0).summary(registeredPackages: []) == "They decrypt none of the 1 token that failed in the last 24 hours: they are not the keys of your app.")
    }
}
