import Attestation
import Crypto
import JSON

/// Checks of `appAttest` in an environment patch (docs/device-api.md "App Attest in depth"): the policy's members and the
/// DeviceCheck key. Messages never repeat the private key.
public enum AppAttestFields {
    /// The most categories listed.
    static let maxCategories = 16

    /// Reads `appAttest` (an object, or `null` to clear the policy and remove the key) into `patch`.
    static func parse(_ value: JSON, at pointer: String, into patch: inout EnvironmentPatch, errors: inout FieldErrors) {
        if value.isNull {
            patch.validationCategories = .remove
            patch.requireValidationCategory = false
            patch.minimumBundleVersion = .remove
            patch.riskMetricAbove = .remove
            patch.deviceCheckKey = .remove
            return
        }
        guard let members = value.members else {
            errors.add(pointer, "must be an object with validationCategories, requireValidationCategory, minimumBundleVersion, riskMetricAbove and/or deviceCheckKey, or null to clear them")
            return
        }
        for member in members {
            let at = Pointer.join(pointer, member.key)
            let value = member.value
            switch member.key {
            case "validationCategories":
                if value.isNull {
                    patch.validationCategories = .remove
                } else if let categories = categories(value, at: at, errors: &errors) {
                    patch.validationCategories = .set(categories)
                }
            case "requireValidationCategory":
                if value.isNull {
                    patch.requireValidationCategory = false
                } else if let required = value.bool {
                    patch.requireValidationCategory = required
                } else {
                    errors.add(at, "must be true or false")
                }
            case "minimumBundleVersion":
                if value.isNull {
                    patch.minimumBundleVersion = .remove
                } else if let text = value.string, !text.isEmpty, text.utf8.count <= AppAttestExtensions.maxBundleVersionBytes,
                          text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) {
                    patch.minimumBundleVersion = .set(text)
                } else {
                    errors.add(at, "must be a bundle version such as \"4.2\" (dot-separated numbers are compared numerically), or null for none")
                }
            case "riskMetricAbove":
                if value.isNull {
                    patch.riskMetricAbove = .remove
                } else if let bound = value.integer, (1...1_000_000).contains(bound) {
                    patch.riskMetricAbove = .set(Int(bound))
                } else {
                    errors.add(at, "must be a whole number from 1 (assertions by keys whose risk metric is above it are rejected), or null to observe only")
                }
            case "deviceCheckKey":
                if value.isNull {
                    patch.deviceCheckKey = .remove
                } else if let key = deviceCheckKey(value, at: at, errors: &errors) {
                    patch.deviceCheckKey = .set(key)
                }
            default:
                errors.add(at, "is not an App Attest setting (expected validationCategories, requireValidationCategory, minimumBundleVersion, riskMetricAbove or deviceCheckKey)")
            }
        }
    }

    static func categories(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> Set<ValidationCategory>? {
        let names = ValidationCategory.knownNames.joined(separator: ", ")
        guard let elements = value.array, !elements.isEmpty, elements.count <= maxCategories else {
            errors.add(pointer, "must be an array of 1 to \(maxCategories) categories (\(names), or numbers), or null to accept any")
            return nil
        }
        var categories = Set<ValidationCategory>()
        let before = errors.errors.count
        for (i, element) in elements.enumerated() {
            let at = Pointer.join(pointer, i)
            let category = element.string.flatMap { ValidationCategory(label: $0) }
                ?? element.integer.flatMap { UInt32(exactly: $0) }.map(ValidationCategory.init)
            guard let category else {
                errors.add(at, "must be one of \(names), or a category number")
                continue
            }
            if !categories.insert(category).inserted { errors.add(at, "lists \(category.label) twice") }
        }
        return errors.errors.count == before ? categories : nil
    }

    /// `{"keyId", "teamId", "privateKey"}`: a 10-character key id and team id (capitals and digits) and a P-256
    /// PKCS#8 PEM private key.
    static func deviceCheckKey(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> DeviceCheckKey? {
        guard let members = value.members else {
            errors.add(pointer, "must be an object with keyId, teamId and privateKey (the .p8 file's text), or null to remove the key")
            return nil
        }
        let before = errors.errors.count
        for member in members where !["keyId", "teamId", "privateKey"].contains(member.key) {
            errors.add(Pointer.join(pointer, member.key), "is not part of a DeviceCheck key (expected keyId, teamId and privateKey)")
        }
        let keyID = identifier(value["keyId"], at: Pointer.join(pointer, "keyId"), what: "the key id Apple shows beside the key (10 capitals and digits)", errors: &errors)
        let teamID = identifier(value["teamId"], at: Pointer.join(pointer, "teamId"), what: "your team id (10 capitals and digits)", errors: &errors)
        let pem = value["privateKey"]?.string
        if pem.flatMap({ try? ECPrivateKey(pem: $0) }) == nil {
            errors.add(Pointer.join(pointer, "privateKey"), "must be the text of the .p8 file Apple let you download (a P-256 private key, -----BEGIN PRIVATE KEY-----…)")
        }
        guard errors.errors.count == before, let keyID, let teamID, let pem else { return nil }
        return DeviceCheckKey(id: DeviceCheckKeyID(keyID: keyID, teamID: teamID), privateKeyPEM: pem)
    }

    private static func identifier(_ value: JSON?, at pointer: String, what: String, errors: inout FieldErrors) -> String? {
        guard let text = value?.string, text.utf8.count == 10,
              text.utf8.allSatisfy({ (65...90).contains($0) || (48...57).contains($0) }) else {
            errors.add(pointer, "must be \(what)")
            return nil
        }
        return text
    }
}
