import Attestation
import Crypto
import Testing

/// Every public assertion vector verifies against its key, app id and previous counter, and each of its
/// expectedFailures fails with the right reason.
@Suite struct AssertionVectorTests {
    static let files = Fixtures.files(kind: "assertion")

    struct Vector {
        let assertion: [UInt8]
        let clientData: [UInt8]
        let key: AttestedKeyState
        let counter: UInt32
        let expectedFailures: [String]

        init(_ file: String) throws {
            let json = try Fixtures.json(file)
            assertion = try Fixtures.base64(try #require(json["assertion"] as? String))
            let data = try #require(json["clientData"] as? [String: Any])
            let value = try #require(data["value"] as? String)
            clientData = data["encoding"] as? String == "hex" ? try Fixtures.hex(value) : Array(value.utf8)
            let hash = try #require(json["clientDataHash"] as? [String: Any])
            #expect(SHA256.hash(clientData) == (try Fixtures.base64(try #require(hash["base64"] as? String))), "\(file): clientDataHash")
            let publicKey = try #require(json["publicKey"] as? [String: Any])
            let x962 = try Fixtures.hex(try #require(publicKey["x962UncompressedHex"] as? String))
            let previous = try #require(json["previousCounter"] as? Int)
            let authenticatorData = try #require(json["authenticatorData"] as? [String: Any])
            counter = UInt32(try #require(authenticatorData["signCount"] as? Int))
            key = AttestedKeyState(publicKey: try ECPublicKey(x962: x962), appId: try #require(json["appId"] as? String),
                                   environment: .production, counter: CounterWindow(newest: UInt32(previous), seenBelow: 0))
            expectedFailures = (try #require(json["expectedFailures"] as? [[String: String]])).compactMap { $0["condition"] }
        }

        var request: AssertionRequest { AssertionRequest(assertion: assertion, clientDataHash: SHA256.hash(clientData)) }
    }

    /// A production environment registering the vector's app id beside another.
    static func registration(_ vector: Vector, isProduction: Bool = true) -> AppAttestRegistration {
        AppAttestRegistration(appIds: ["ABCDE12345.com.example.app", vector.key.appId], isProduction: isProduction)
    }

    @Test func thereAreFourteenAssertions() {
        #expect(Self.files.count == 14)
    }

    @Test(arguments: files) func verifies(file: String) throws {
        let vector = try Vector(file)
        let result = try Verifiers.apple().verifyAssertion(vector.request, key: vector.key, registration: Self.registration(vector))
        #expect(result.verdict == .verified, "\(file): \(result.verdict)")
        #expect(result.counter == vector.counter)
        #expect(result.newWindow?.newest == vector.counter)
    }

    @Test(arguments: files) func expectedFailuresFailForTheirReason(file: String) throws {
        let vector = try Vector(file)
        let verifier = try Verifiers.apple()
        for condition in vector.expectedFailures {
            var request = vector.request
            var key = vector.key
            let want: Verdict
            if condition.hasPrefix("previousCounter >= ") {
                let at = try #require(UInt32(condition.dropFirst("previousCounter >= ".count)))
                #expect(at == vector.counter, "\(file): \(condition)")
                for newest in [at, at + 1, at + 31] {
                    key.counter = CounterWindow(newest: newest, seenBelow: newest == at ? 0 : UInt32.max)
                    let result = verifier.verifyAssertion(request, key: key, registration: Self.registration(vector))
                    #expect(result.verdict == Verdict(reasons: [.counterReused]), "\(file): newest \(newest)")
                    #expect(result.newWindow == nil)
                }
                key.counter = CounterWindow(newest: at + 32, seenBelow: 0)
                want = Verdict(reasons: [.counterRegression])
            } else if condition == "any other clientData" {
                request.clientDataHash = SHA256.hash(vector.clientData + [0x20])
                want = Verdict(reasons: [.assertionInvalid])
            } else if condition.hasPrefix("appId with a different") {
                key.appId = "ZZZZZZZZZZ." + (key.appId.split(separator: ".", maxSplits: 1).last.map(String.init) ?? "")
                want = Verdict(reasons: [.rpIdMismatch])
            } else {
                Issue.record("\(file): unknown condition \(condition)")
                continue
            }
            let result = verifier.verifyAssertion(request, key: key, registration: Self.registration(vector))
            #expect(result.verdict == want, "\(file): \(condition): \(result.verdict)")
            #expect(result.newWindow == nil)
        }
    }

    @Test(arguments: files) func aDevelopmentKeyInProductionIsRejected(file: String) throws {
        let vector = try Vector(file)
        var key = vector.key
        key.environment = .development
        let verifier = try Verifiers.apple()
        let production = verifier.verifyAssertion(vector.request, key: key, registration: Self.registration(vector))
        #expect(production.verdict == Verdict(reasons: [.developmentKey]))
        #expect(production.newWindow == nil)
        let development = verifier.verifyAssertion(vector.request, key: key, registration: Self.registration(vector, isProduction: false))
        #expect(development.verdict == .verified)
    }

    /// A key speaks only while its app id is registered: once removed, its genuine assertions are rejected and
    /// spend no counter.
    @Test(arguments: files) func aKeyWhoseAppIdIsNoLongerRegisteredIsRejected(file: String) throws {
        let vector = try Vector(file)
        let removed = AppAttestRegistration(appIds: ["ABCDE12345.com.example.app"], isProduction: true)
        let result = try Verifiers.apple().verifyAssertion(vector.request, key: vector.key, registration: removed)
        #expect(result.verdict == Verdict(reasons: [.appIdNotRegistered]), "\(file)")
        #expect(result.newWindow == nil)
    }
}
