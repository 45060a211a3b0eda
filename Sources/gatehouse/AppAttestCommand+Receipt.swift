import Attestation
import Crypto
import Foundation
import Gatehouse
import JSON

extension AppAttestCommand {
    /// `verify-receipt`: a receipt (from an attestation or from Apple) checked and printed.
    static func verifyReceipt(_ arguments: [String]) throws -> (valid: Bool, output: [String: Any]) {
        let options = try Command.options(arguments, values: ["--receipt", "--public-key", "--app-id", "--at", "--roots"])
        let receipt = try readObject(try options.required("--receipt"))
        let key = try options["--public-key"].map(readPublicKey)
        let now = try options["--at"].map(parseTime) ?? Int64(Date().timeIntervalSince1970)
        let reader = AppAttestReceiptReader(roots: try receiptRoots(options["--roots"]))
        let check = reader.check(receipt, expecting: AppAttestReceiptExpectation(appId: options["--app-id"], attestedKey: key?.x962), at: now)
        return (check.isValid, receiptObject(check))
    }

    /// Receipt roots: the PEM file at `path`, else Apple Root CA - G3.
    static func receiptRoots(_ path: String?) throws -> AppAttestRoots {
        guard let path else { return try AppAttestRoots.appleReceipts() }
        return try AppAttestRoots(pem: String(decoding: try readFile(path), as: UTF8.self))
    }

    /// `{"valid", "reasons", "type", "appId", "environment", "creationTime", "notBefore", "expirationTime", "riskMetric",
    /// "publicKey"}`: what the receipt says (null where it could not be read) and whether it is accepted.
    static func receiptObject(_ check: AppAttestReceiptCheck) -> [String: Any] {
        let receipt = check.receipt
        let time = { (seconds: Int64?) -> Any in seconds.map(Timestamp.format) ?? NSNull() }
        let publicKey = receipt?.attestedKey.flatMap { try? ECPublicKey(x962: $0) }
        return [
            "valid": check.isValid,
            "reasons": check.reasons.map(\.rawValue),
            "type": receipt?.type ?? NSNull(),
            "appId": receipt?.appId ?? NSNull(),
            "environment": receipt?.environment ?? NSNull(),
            "creationTime": time(receipt?.creationTime),
            "notBefore": time(receipt?.notBefore),
            "expirationTime": time(receipt?.expirationTime),
            "riskMetric": receipt?.riskMetric ?? NSNull(),
            "publicKey": publicKey.map { Base64.encode($0.derSubjectPublicKeyInfo) } ?? NSNull(),
        ]
    }

    /// `{"validationCategory", "bundleVersion", …}`: the two Apple identifiers typed (a category by name where known,
    /// else its number), any other identifier as it is (byte strings in base64).
    static func extensionsObject(_ extensions: AppAttestExtensions) -> [String: Any] {
        var object: [String: Any] = [:]
        if let category = extensions.validationCategory { object["validationCategory"] = category.name ?? Int(category.value) as Any }
        if let version = extensions.bundleVersion { object["bundleVersion"] = version }
        for pair in extensions.others {
            if let key = pair.key.textString { object[key] = plain(pair.value) }
        }
        return object
    }

    private static func plain(_ item: CBOR) -> Any {
        switch item {
        case .unsigned(let n): return n <= UInt64(Int.max) ? Int(n) as Any : String(n)
        case .negative(let n): return n < UInt64(Int.max) ? -1 - Int(n) : "-1-\(n)"
        case .bytes(let bytes): return Base64.encode(bytes)
        case .text(let text): return text
        case .array(let items): return items.map(plain)
        case .map(let pairs): return Dictionary(pairs.map { (String(describing: plain($0.key)), plain($0.value)) }, uniquingKeysWith: { first, _ in first })
        case .bool(let value): return value
        case .null, .undefined: return NSNull()
        case .float(let value): return value
        }
    }
}
