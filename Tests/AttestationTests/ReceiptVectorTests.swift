import Attestation
import Crypto
import JSON
import Testing

/// Every real attestation's `ATTEST` receipt reads and verifies against Apple Root CA - G3 at the vector's validAt
/// with the fields of its `receiptSummary`; each mutation fails for its reason.
@Suite struct ReceiptVectorTests {
    static let files = Fixtures.files(kind: "attestation")

    static func receipt(of vector: AttestationVector) throws -> [UInt8] {
        try #require(try AttestationObject(vector.attestation).receipt)
    }

    static func reader() throws -> AppAttestReceiptReader {
        AppAttestReceiptReader(roots: try AppAttestRoots.appleReceipts())
    }

    @Test(arguments: files) func readsAndVerifiesAtValidAt(file: String) throws {
        let vector = try AttestationVector(file)
        let summary = try #require(vector.json["receiptSummary"] as? [String: Any])
        let expectation = AppAttestReceiptExpectation.attestation(appId: vector.appId, attestedKey: vector.x962)
        // One source tests its attestation after its receipt expired (and its signer's certificate with it): that
        // receipt is checked when it was made, and refused at validAt for those reasons.
        var at = vector.validAt
        if let expiration = summary["expirationTime"] as? String, try Fixtures.unixTime(expiration) < at {
            let late = try Self.reader().check(try Self.receipt(of: vector), expecting: expectation, at: at)
            #expect(late.reasons == [.certificateChainInvalid, .expired], "\(file)")
            at = try Fixtures.unixTime(try #require(summary["creationTime"] as? String))
        }
        let check = try Self.reader().check(try Self.receipt(of: vector), expecting: expectation, at: at)
        #expect(check.reasons == [], "\(file)")
        let receipt = try #require(check.receipt)
        #expect(receipt.type == summary["type"] as? String)
        #expect(receipt.appId == summary["appId"] as? String)
        #expect(receipt.environment == summary["environment"] as? String)
        #expect(receipt.clientHash.map { Hex.encode($0) } == summary["clientHashHex"] as? String)
        #expect(receipt.creationTime == (try Fixtures.unixTime(try #require(summary["creationTime"] as? String))))
        #expect(receipt.expirationTime == (try (summary["expirationTime"] as? String).map(Fixtures.unixTime)))
        #expect(receipt.notBefore == (try (summary["notBefore"] as? String).map(Fixtures.unixTime)))
        #expect(receipt.riskMetric == (summary["riskMetric"] as? Int))
        #expect(receipt.attestedKey == vector.x962)
    }

    @Test func kayakSignsItsContentBesideItsSignedAttributes() throws {
        let bytes = try Self.receipt(of: try AttestationVector("webauthn4j_kayak_production.json"))
        let signed = try SignedData(ber: bytes, maxBytes: 1 << 16)
        #expect(signed.hasSignedAttributes)
        #expect(signed.signatureVerifies)
        #expect(signed.signer.extensionValue(oid: AppAttestReceiptReader.signerMarkerOID) != nil)
    }

    @Test func theBuiltInReceiptRootIsG3() throws {
        let roots = try AppAttestRoots.appleReceipts()
        #expect(roots.isAppleReceipts && !roots.isApple)
        #expect(roots.certificates.map(\.der) == (try AppAttestRoots(pem: try Fixtures.text("apple_root_ca_g3.pem"))).certificates.map(\.der))
    }

    // MARK: mutations of a real receipt

    static let mutated = "warden_ios16_production.json"

    func check(_ bytes: [UInt8], _ expectation: AppAttestReceiptExpectation? = nil, roots: AppAttestRoots? = nil) throws -> AppAttestReceiptCheck {
        let vector = try AttestationVector(Self.mutated)
        let reader = AppAttestReceiptReader(roots: try roots ?? AppAttestRoots.appleReceipts())
        return reader.check(bytes, expecting: expectation ?? .attestation(appId: vector.appId, attestedKey: vector.x962), at: vector.validAt)
    }

    func original() throws -> [UInt8] { try Self.receipt(of: try AttestationVector(Self.mutated)) }

    @Test func theOriginalPasses() throws {
        #expect(try check(try original()).reasons == [])
    }

    @Test func aFlippedSignatureByteIsSignatureInvalid() throws {
        var bytes = try original()
        let signature = try #require(Self.signatureOffset(bytes))
        bytes[signature + 10] ^= 0x01
        #expect(try check(bytes).reasons == [.signatureInvalid])
    }

    @Test func aFlippedContentByteIsSignatureInvalid() throws {
        var bytes = try original()
        let vector = try AttestationVector(Self.mutated)
        // The app id's text inside the content: one letter changed.
        let at = try #require(Self.offset(of: Array(vector.appId.utf8), in: bytes))
        bytes[at + vector.appId.utf8.count - 1] ^= 0x01
        let check = try check(bytes)
        #expect(check.reasons.first == .signatureInvalid)
        #expect(check.reasons.contains(.appIdMismatch))
    }

    @Test func aFlippedSignerCertificateByteIsChainInvalid() throws {
        var bytes = try original()
        let signer = try SignedData(ber: bytes, maxBytes: 1 << 16).signer.der
        let at = try #require(Self.offset(of: signer, in: bytes))
        bytes[at + signer.count - 2] ^= 0x01  // inside the issuer's signature on the certificate
        #expect(try check(bytes).reasons == [.certificateChainInvalid])
    }

    @Test func anotherAppIdIsAppIdMismatch() throws {
        let vector = try AttestationVector(Self.mutated)
        let check = try check(try original(), .attestation(appId: "ABCDE12345.com.example.other", attestedKey: vector.x962))
        #expect(check.reasons == [.appIdMismatch])
    }

    @Test func anotherKeyIsPublicKeyMismatch() throws {
        let vector = try AttestationVector(Self.mutated)
        let other = try ECPrivateKey.generate().publicKey.x962
        #expect(try check(try original(), .attestation(appId: vector.appId, attestedKey: other)).reasons == [.publicKeyMismatch])
    }

    @Test func theAppAttestRootIsChainInvalid() throws {
        #expect(try check(try original(), roots: try AppAttestRoots.apple()).reasons == [.certificateChainInvalid])
    }

    @Test func aRefreshedReceiptIsExpectedOfAnotherType() throws {
        let vector = try AttestationVector(Self.mutated)
        #expect(try check(try original(), .refreshed(appId: vector.appId, attestedKey: vector.x962)).reasons == [.typeMismatch])
        let made = try #require(try check(try original()).receipt?.creationTime)
        let later = try Self.reader().check(try original(), expecting: .refreshed(appId: vector.appId, attestedKey: vector.x962), at: made + 301)
        #expect(later.reasons == [.typeMismatch, .stale])
    }

    @Test func afterItsExpirationItIsExpired() throws {
        let vector = try AttestationVector(Self.mutated)
        let expiration = try #require(check(try original()).receipt?.expirationTime)
        let reader = try Self.reader()
        // The signer's certificate outlives the receipt: only the receipt's own expiration speaks.
        let late = reader.check(try original(), expecting: .attestation(appId: vector.appId, attestedKey: vector.x962), at: expiration + 1)
        #expect(late.reasons.contains(.expired))
    }

    @Test(arguments: [0, 1, 7, 100, 1000]) func truncatedIsMalformed(keep: Int) throws {
        #expect(try check(Array(try original().prefix(keep))).reasons == [.malformed])
    }

    @Test func trailingBytesAreMalformed() throws {
        #expect(try check(try original() + [0]).reasons == [.malformed])
    }

    /// Where the signer's ECDSA signature starts: the last `OCTET STRING` holding a DER `SEQUENCE { INTEGER, INTEGER }`.
    static func signatureOffset(_ bytes: [UInt8]) -> Int? {
        (0..<(bytes.count - 8)).reversed().first { at in
            bytes[at] == 0x04 && Int(bytes[at + 1]) == Int(bytes[at + 3]) + 2 && bytes[at + 2] == 0x30 && bytes[at + 4] == 0x02
        }
    }

    static func offset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
