import Attestation
import AttestationTesting
import Crypto
import Foundation
import Testing

/// Receipts signed by a synthetic receipt authority: what real receipts cannot show (a signer without Apple's marker,
/// a `RECEIPT` with its risk metric and not-before, signed attributes made by OpenSSL).
@Suite(.serialized) struct SyntheticReceiptTests {
    static let appId = "ABCDE12345.com.example.app"
    static let authority: Result<SyntheticAppleReceipts, any Error> = Result { try SyntheticAppleReceipts() }

    let now = Int64(Date().timeIntervalSince1970)

    /// An attested leaf certificate from a synthetic App Attest CA, and its key.
    static func leaf() throws -> (certificate: Certificate, key: ECPublicKey) {
        let attested = try ca.get().attest(appId: appId, clientDataHash: SHA256.hash("c"))
        let certificate = try Certificate(der: try #require(try AttestationObject(attested.attestation).x5c.first))
        return (certificate, attested.publicKey)
    }

    static let ca: Result<SyntheticAppAttest, any Error> = Result { try SyntheticAppAttest() }

    @Test(arguments: [false, true]) func aRefreshedReceiptReadsWithItsMetric(signedAttributes: Bool) throws {
        let (leaf, key) = try Self.leaf()
        let bytes = try Self.authority.get().sign(SyntheticAppleReceipts.fields(
            type: AppAttestReceipt.receiptType, appId: Self.appId, certificate: leaf.der, clientHash: [1], environment: "production",
            created: now, riskMetric: 7, notBefore: now + 86_400, expires: now + 90 * 86_400), signedAttributes: signedAttributes)
        let reader = AppAttestReceiptReader(roots: try Self.authority.get().roots)
        let check = reader.check(bytes, expecting: .refreshed(appId: Self.appId, attestedKey: key.x962), at: now + 10)
        #expect(check.reasons == [])
        #expect(check.receipt?.riskMetric == 7)
        #expect(check.receipt?.notBefore == now + 86_400)
        #expect(check.receipt?.expirationTime == now + 90 * 86_400)
        #expect(check.receipt?.type == "RECEIPT")
        // Apple's step 5: a receipt made more than five minutes ago is not fresh.
        #expect(reader.check(bytes, expecting: .refreshed(appId: Self.appId, attestedKey: key.x962), at: now + 301).reasons == [.stale])
    }

    @Test func aSignerWithoutTheMarkerIsNotAReceiptSigner() throws {
        let unmarked = try SyntheticAppleReceipts(marker: false)
        // Its certificates start now: check a little later than the suite's clock.
        let now = Int64(Date().timeIntervalSince1970) + 1
        let leaf = try Self.leaf().certificate
        let bytes = try unmarked.sign(SyntheticAppleReceipts.fields(
            type: AppAttestReceipt.attestType, appId: Self.appId, certificate: leaf.der, clientHash: [1], environment: "production",
            created: now, expires: now + 86_400))
        let check = AppAttestReceiptReader(roots: unmarked.roots).check(bytes, expecting: AppAttestReceiptExpectation(appId: Self.appId), at: now)
        #expect(check.reasons == [.notReceiptSigner])
        // Another authority's root does not anchor it either.
        let other = AppAttestReceiptReader(roots: try Self.authority.get().roots).check(bytes, expecting: AppAttestReceiptExpectation(), at: now)
        #expect(other.reasons == [.certificateChainInvalid, .notReceiptSigner])
    }

    @Test(arguments: [
        ("a risk metric that is not a number", [17: Array("many".utf8)]),
        ("no type", [6: [UInt8]()]),
        ("a creation time that is not RFC 3339", [12: Array("yesterday".utf8)]),
    ] as [(String, [Int: [UInt8]])]) func contentOutOfShapeIsMalformed(_ label: String, changes: [Int: [UInt8]]) throws {
        let leaf = try Self.leaf().certificate
        var fields = SyntheticAppleReceipts.fields(type: "RECEIPT", appId: Self.appId, certificate: leaf.der, clientHash: [1],
                                              environment: "production", created: now, riskMetric: 1, expires: now + 86_400)
        for (type, value) in changes {
            if value.isEmpty { fields[type] = nil } else { fields[type] = value }
        }
        let check = AppAttestReceiptReader(roots: try Self.authority.get().roots).check(try Self.authority.get().sign(fields), expecting: AppAttestReceiptExpectation(), at: now)
        #expect(check.reasons == [.malformed], "\(label)")
        #expect(check.receipt == nil)
    }

    @Test func aFieldTwiceIsMalformed() throws {
        var content = SyntheticAppleReceipts.content([6: Array("RECEIPT".utf8), 2: Array(Self.appId.utf8)])
        // Append a second member of type 6 by hand (the builder keys fields by type).
        let member: [UInt8] = [0x30, 0x0B, 0x02, 0x01, 0x06, 0x02, 0x01, 0x01, 0x04, 0x03] + Array("ABC".utf8)
        content = [0x31, UInt8(content.count - 2 + member.count)] + content.dropFirst(2) + member
        let check = AppAttestReceiptReader(roots: try Self.authority.get().roots).check(try Self.authority.get().sign(content: content),
                                                                                       expecting: AppAttestReceiptExpectation(), at: now)
        #expect(check.reasons == [.malformed])
    }
}
