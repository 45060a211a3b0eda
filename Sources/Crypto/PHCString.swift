/// An Argon2 hash in the PHC string format used by libargon2 and most password libraries:
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, salt and hash in unpadded standard Base64.
struct PHCString: Equatable {
    var variant: Argon2.Variant
    var memoryKiB: UInt32
    var iterations: UInt32
    var parallelism: UInt32
    var salt: [UInt8]
    var hash: [UInt8]

    /// Bounds on what we agree to verify, so a corrupted or planted stored hash cannot make one login
    /// allocate gigabytes or run for minutes. They sit far above any sensible configuration.
    static let maximumMemoryKiB: UInt32 = 1024 * 1024
    static let maximumIterations: UInt32 = 64
    static let maximumParallelism: UInt32 = 64
    static let saltLengths = 8...64
    static let hashLengths = 16...64

    /// The encoded form.
    var encoded: String {
        "$\(variant.rawValue)$v=19$m=\(memoryKiB),t=\(iterations),p=\(parallelism)$"
            + Base64.encode(salt, padded: false) + "$" + Base64.encode(hash, padded: false)
    }

    /// Parses an encoded string strictly: version 19 only, parameters in the order m, t, p as decimals without
    /// leading zeros, unpadded standard Base64, lengths and costs within the bounds above. Nil otherwise.
    init?(parsing text: String) {
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty,
              let variant = Argon2.Variant(rawValue: String(fields[1])),
              fields[2] == "v=19" else { return nil }
        let costs = fields[3].split(separator: ",", omittingEmptySubsequences: false)
        guard costs.count == 3,
              let memory = Self.decimal(costs[0], key: "m"),
              let iterations = Self.decimal(costs[1], key: "t"),
              let parallelism = Self.decimal(costs[2], key: "p"),
              memory <= Self.maximumMemoryKiB, (1...Self.maximumIterations).contains(iterations),
              (1...Self.maximumParallelism).contains(parallelism), memory >= 8 * parallelism else { return nil }
        let saltText = String(fields[4])
        let hashText = String(fields[5])
        guard Self.isUnpaddedStandard(saltText), Self.isUnpaddedStandard(hashText),
              let salt = Base64.decode(saltText), let hash = Base64.decode(hashText),
              Self.saltLengths.contains(salt.count), Self.hashLengths.contains(hash.count) else { return nil }
        self.init(variant: variant, memoryKiB: memory, iterations: iterations, parallelism: parallelism,
                  salt: salt, hash: hash)
    }

    init(variant: Argon2.Variant, memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32,
         salt: [UInt8], hash: [UInt8]) {
        self.variant = variant
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.salt = salt
        self.hash = hash
    }

    /// Parses `key=digits` with 1–10 ASCII digits, no leading zero, fitting in UInt32.
    private static func decimal(_ field: Substring, key: String) -> UInt32? {
        guard field.hasPrefix(key + "=") else { return nil }
        let digits = field.dropFirst(key.count + 1)
        guard (1...10).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              digits == "0" || digits.first != "0" else { return nil }
        return UInt32(digits)
    }

    /// PHC strings use the standard alphabet without padding.
    private static func isUnpaddedStandard(_ text: String) -> Bool {
        !text.isEmpty && !text.utf8.contains { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }
}
