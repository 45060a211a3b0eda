import Attestation
import JSON

extension KeyAttestationResult {
    /// `{"verdict": {"status", "reasons"}, "keyId", "observed"}` as the registration endpoint and the offline command
    /// answer (docs/device-api.md "Android Key Attestation").
    public var json: JSON {
        .object([
            .init("verdict", .object([.init("status", .string(verdict.status.rawValue)), .init("reasons", .array(verdict.reasons.map { .string($0) }))])),
            .init("keyId", keyID.map { .string($0) } ?? .null),
            .init("observed", observed.json),
        ])
    }
}

extension KeyAttestationObservation {
    /// The observed values; those the chain did not show are null.
    public var json: JSON {
        func text(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
        func number(_ value: Int?) -> JSON { value.map { .number(Double($0)) } ?? .null }
        return .object([
            .init("securityLevel", text(securityLevel)),
            .init("keyMintSecurityLevel", text(keyMintSecurityLevel)),
            .init("keyMintVersion", number(keyMintVersion)),
            .init("attestationVersion", number(attestationVersion)),
            .init("verifiedBootState", text(verifiedBootState)),
            .init("bootKey", text(bootKey)),
            .init("deviceLocked", deviceLocked.map { .bool($0) } ?? .null),
            .init("osVersion", number(osVersion)),
            .init("osPatchLevel", text(osPatchLevel)),
            .init("vendorPatchLevel", text(vendorPatchLevel)),
            .init("bootPatchLevel", text(bootPatchLevel)),
            .init("packages", .array(packages.map { .object([.init("name", .string($0.name)), .init("version", .number(Double($0.version)))]) })),
            .init("certificateDigests", .array(certificateDigests.map { .string($0) })),
            .init("provisioning", text(provisioning)),
            .init("root", text(root)),
            .init("revocation", .string(revocation)),
            .init("unknownTags", .array(unknownTags.map { .number(Double($0)) })),
        ])
    }
}

extension KeyAttestationStatusList {
    /// Google's status list (`{"entries": {"<serial>": {"status": "REVOKED" | "SUSPENDED", "reason": …}}}`); entries of
    /// another status are skipped, serials are read in lowercase without leading zeros.
    /// - Throws: `ValidationError` naming what is not as Google sends it.
    public static func parse(_ json: JSON) throws -> KeyAttestationStatusList {
        guard let entries = json["entries"]?.members else { throw ValidationError("/entries", "must be an object of certificate serial → status") }
        var parsed: [String: Status] = [:]
        for entry in entries {
            guard let status = entry.value["status"]?.string else { throw ValidationError(Pointer.join("/entries", entry.key) + "/status", "must be a string") }
            guard let known = Status(rawValue: status) else { continue }
            let serial = entry.key.lowercased().drop { $0 == "0" }
            parsed[serial.isEmpty ? "0" : String(serial)] = known
        }
        return KeyAttestationStatusList(entries: parsed)
    }
}
