import Attestation
import Crypto
import Foundation
import Testing

/// Android's key description read from real devices' chains (Google's `android/keyattestation` test data, Apache-2.0,
/// Fixtures/keyattestation/LICENSE): every field the contract judges equals what Google's data documents beside each
/// chain; the two malformed descriptions of that data (tags out of order, a malformed root of trust) are refused.
@Suite("Android key description")
struct KeyDescriptionTests {
    static let chains = [
        "tegu_sdk36_TEE_EC_2026_ROOT", "tegu_sdk36_SB_EC_2026_ROOT", "caiman_sdk36_TEE_EC_RKP", "sony-xperia10-iii_sdk33_TEE_EC",
        "blueline_sdk28_TEE_EC_NONE", "akita_sdk34_TEE_EC_NONE", "marlin_sdk29_TEE_EC_NONE",
    ]

    /// The path of a fixture file (for the command line).
    static func fixturePath(_ file: String) throws -> String {
        try Fixtures.directory.appendingPathComponent(file).path
    }

    /// The key description of the first certificate of `name`.pem.
    static func description(_ name: String) throws -> KeyDescription {
        let chain = try Certificate.chain(pem: try Fixtures.text("keyattestation/\(name).pem"))
        let value = try #require(chain.first?.extensionValue(oid: KeyDescription.oid), "\(name): no attestation extension")
        return try KeyDescription(der: value)
    }

    /// The documented fields of `name`.json (Google's files hold `//` comments).
    static func documented(_ name: String) throws -> [String: Any] {
        let text = try Fixtures.text("keyattestation/\(name).json")
        let json = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    static func level(_ name: Any?) -> KeySecurityLevel? {
        switch name as? String {
        case "SOFTWARE": .software
        case "TRUSTED_ENVIRONMENT": .trustedEnvironment
        case "STRONG_BOX": .strongBox
        default: nil
        }
    }

    static func int(_ value: Any?) -> Int? { (value as? String).flatMap { Int($0) } }

    static func bytes(_ value: Any?) -> [UInt8]? { (value as? String).flatMap { Base64.decode($0) } }

    @Test(arguments: chains)
    func realChainsReadAsGoogleDocumentsThem(_ name: String) throws {
        let read = try Self.description(name)
        let doc = try Self.documented(name)
        #expect(read.attestationVersion == Self.int(doc["attestationVersion"]))
        #expect(read.keyMintVersion == Self.int(doc["keyMintVersion"]))
        #expect(read.attestationSecurityLevel == Self.level(doc["attestationSecurityLevel"]))
        #expect(read.keyMintSecurityLevel == Self.level(doc["keyMintSecurityLevel"]))
        #expect(read.attestationChallenge == Self.bytes(doc["attestationChallenge"]))

        let hardware = try #require(doc["hardwareEnforced"] as? [String: Any])
        let enforced = read.hardwareEnforced
        #expect(enforced.purposes == (hardware["purposes"] as? [String])?.compactMap { Int($0) })
        #expect(enforced.algorithm == Self.int(hardware["algorithms"]))
        #expect(enforced.ecCurve == Self.int(hardware["ecCurve"]))
        #expect(enforced.keySize == Self.int(hardware["keySize"]))
        #expect(enforced.origin == (hardware["origin"] as? String == "GENERATED" ? AuthorizationList.originGenerated : -1))
        #expect(enforced.osVersion == Self.int(hardware["osVersion"]))
        #expect(enforced.osPatchLevel == Self.int(hardware["osPatchLevel"]))
        #expect(enforced.vendorPatchLevel == Self.int(hardware["vendorPatchLevel"]))
        #expect(enforced.bootPatchLevel == Self.int(hardware["bootPatchLevel"]))
        if let root = hardware["rootOfTrust"] as? [String: Any] {
            let trust = try #require(enforced.rootOfTrust)
            #expect(trust.verifiedBootKey == Self.bytes(root["verifiedBootKey"]))
            #expect(trust.deviceLocked == root["deviceLocked"] as? Bool)
            #expect(trust.verifiedBootState.name.lowercased() == (root["verifiedBootState"] as? String)?.lowercased().replacingOccurrences(of: "_", with: ""))
            #expect(trust.verifiedBootHash == Self.bytes(root["verifiedBootHash"]))
        } else {
            #expect(enforced.rootOfTrust == nil, "a root of trust Google's data does not document")
        }

        let software = try #require(doc["softwareEnforced"] as? [String: Any])
        let application = try #require(software["attestationApplicationId"] as? [String: Any])
        let app = try #require(read.softwareEnforced.attestationApplicationID)
        let packages = try #require(application["packages"] as? [[String: Any]])
        #expect(app.packages.map(\.name) == packages.map { $0["name"] as? String ?? "" })
        #expect(app.packages.map(\.version) == packages.map { Self.int($0["version"]) ?? -1 })
        #expect(app.signatureDigests == (application["signatures"] as? [String])?.compactMap { Base64.decode($0) })
        // creationDateTime (701) is not judged: kept by number, as every tag the contract does not name.
        #expect(read.softwareEnforced.unknownTags.contains(701))
        #expect(read.hardwareEnforced.unknownTags.allSatisfy { ![1, 2, 3, 10, 702, 704, 705, 706, 718, 719].contains($0) })
    }

    @Test(arguments: [("invalid_tags_not_in_ascending_order", "after tag"), ("invalid_malformed_rot_device_locked", "deviceLocked")])
    func malformedDescriptionsAreRefusedForWhatIsWrong(_ name: String, _ said: String) throws {
        #expect { try Self.description(name) } throws: { error in
            guard let error = error as? KeyDescriptionError else { return false }
            return error.description.contains(said)
        }
    }

    /// Strictness the real data does not show: a repeated tag, a non-minimal integer, bytes after the description.
    @Test func repeatedTagsNonMinimalIntegersAndTrailingBytesAreRefused() throws {
        let value = try #require(try Certificate.chain(pem: try Fixtures.text("keyattestation/tegu_sdk36_TEE_EC_2026_ROOT.pem")).first?
            .extensionValue(oid: KeyDescription.oid))
        #expect(throws: KeyDescriptionError.self) { try KeyDescription(der: value + [0x05, 0x00]) }
        // attestationVersion 400 (02 02 01 90) re-encoded with a leading zero byte, lengths fixed up.
        let minimal: [UInt8] = [0x02, 0x02, 0x01, 0x90]
        let start = try #require(value.firstRange(of: minimal)?.lowerBound)
        var padded = Array(value[..<start]) + [0x02, 0x03, 0x00, 0x01, 0x90] + Array(value[(start + 4)...])
        // The outer SEQUENCE's length grows by one (a long-form length of one or two bytes).
        if padded[1] == 0x82 {
            let length = Int(padded[2]) << 8 | Int(padded[3]) + 1
            padded[2] = UInt8(length >> 8)
            padded[3] = UInt8(length & 0xFF)
        } else if padded[1] == 0x81 {
            padded[2] += 1
        }
        #expect { try KeyDescription(der: padded) } throws: { ($0 as? KeyDescriptionError)?.description.contains("minimally") == true }
    }
}
