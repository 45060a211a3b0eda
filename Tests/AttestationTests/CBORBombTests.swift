import Attestation
import AttestationTesting
import Crypto
import Testing

/// Hostile CBOR costs little and ends in a typed error: deep nesting, huge declared lengths and counts, huge
/// arrays, truncation at every byte.
@Suite struct CBORBombTests {
    @Test func deepNestingStopsAtTheDepthLimit() throws {
        let decoder = CBORDecoder(limits: CBORLimits(maxDepth: 16))
        let fifteen = [UInt8](repeating: 0x81, count: 15) + [0x00]
        #expect(throws: Never.self) { try decoder.decode(fifteen) }
        let sixteen = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(throws: CBORError(.tooDeep, at: 16)) { try decoder.decode(sixteen) }
        // A million levels, definite and indefinite, arrays and maps: an error, not a stack overflow.
        for opener: [UInt8] in [[0x81], [0x9F], [0xA1, 0x00], [0xBF, 0x00]] {
            let bomb = Array([[UInt8]](repeating: opener, count: 1_000_000).joined())
            let error = try #require(throws: CBORError.self) { try CBORDecoder(limits: CBORLimits(maxBytes: 4 << 20)).decode(bomb) }
            #expect(error.kind == .tooDeep)
        }
    }

    @Test func hugeDeclaredLengthsAreTruncatedNotAllocated() {
        for head: [UInt8] in [[0x5B], [0x7B], [0x9B], [0xBB]] {
            let bomb = head + [UInt8](repeating: 0xFF, count: 8) + [0x00, 0x00]
            #expect(throws: CBORError(.truncated, at: 0)) { try CBORDecoder().decode(bomb) }
        }
        // 2^32 - 1 elements declared, three present.
        #expect(throws: CBORError(.truncated, at: 0)) { try CBORDecoder().decode([0x9A, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0]) }
    }

    @Test func hugeArraysStopAtTheItemLimit() throws {
        let decoder = CBORDecoder(limits: CBORLimits(maxItems: 1000))
        let fits = CBOREncoder.head(4, 999) + [UInt8](repeating: 0x00, count: 999)
        #expect(try decoder.decode(fits).arrayElements?.count == 999)
        let over = CBOREncoder.head(4, 1000) + [UInt8](repeating: 0x00, count: 1000)
        #expect(throws: CBORError.self) { try decoder.decode(over) }
        // Indefinite, and nested empty arrays: every item counts.
        let indefinite = [0x9F] + [UInt8](repeating: 0x80, count: 5000) + [0xFF]
        #expect(throws: CBORError(.tooManyItems, at: 1000)) { try decoder.decode(indefinite) }
        // Chunks of an indefinite string count too.
        let chunks = [0x5F] + Array([[UInt8]](repeating: [0x40], count: 5000).joined()) + [0xFF]
        #expect(throws: CBORError(.tooManyItems, at: 1000)) { try decoder.decode(chunks) }
    }

    @Test func inputOverTheSizeLimitIsRefusedUpFront() {
        let decoder = CBORDecoder(limits: CBORLimits(maxBytes: 100))
        #expect(throws: CBORError(.tooLarge, at: 0)) { try decoder.decode(CBOREncoder.head(2, 99) + [UInt8](repeating: 1, count: 99)) }
        #expect(throws: Never.self) { try decoder.decode(CBOREncoder.head(2, 98) + [UInt8](repeating: 1, count: 98)) }
    }

    @Test func everyTruncationOfARealAttestationIsAnError() throws {
        let vector = try AttestationVector("apple_example_2026_production.json")
        let bytes = vector.attestation
        #expect(throws: Never.self) { try CBORDecoder().decode(bytes) }
        for length in 0..<bytes.count {
            #expect(throws: CBORError.self) { try CBORDecoder().decode(Array(bytes[..<length])) }
        }
    }

    @Test func bombsAreVerdictsNotCrashes() throws {
        let verifier = try Verifiers.apple()
        let registration = AppAttestRegistration(appIds: ["ABCDE12345.com.example.app"], isProduction: true)
        let bombs: [[UInt8]] = [
            [], [0x00], [UInt8](repeating: 0x81, count: 100_000), [0x5B] + [UInt8](repeating: 0xFF, count: 8),
            CBOREncoder.head(4, 100_000) + [UInt8](repeating: 0, count: 100_000), Array("not CBOR at all".utf8),
            CBOREncoder.encode(.map([CBOR.Pair(.text("fmt"), .unsigned(1))])),
        ]
        for bomb in bombs {
            let attestation = verifier.verifyAttestation(AttestationRequest(attestation: bomb, keyId: [], clientDataHash: []),
                                                         registration: registration, now: 0)
            #expect(attestation.verdict == Verdict(reasons: [.attestationInvalid]))
            let key = try AttestedKeyState(publicKey: ECPublicKeyFixture.key(), appId: "ABCDE12345.com.example.app",
                                           environment: .production, counter: .fresh)
            let assertion = verifier.verifyAssertion(AssertionRequest(assertion: bomb, clientDataHash: []), key: key,
                                                     registration: registration)
            #expect(assertion.verdict == Verdict(reasons: [.assertionInvalid]))
            #expect(assertion.counter == nil)
        }
    }
}
