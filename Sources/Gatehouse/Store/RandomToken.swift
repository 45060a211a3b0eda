import Crypto

/// Random identifiers and secrets: `prefix` + lowercase base32 of random bytes (no padding, easy to select).
public enum RandomToken {
    /// A secret of 32 random bytes (256 bits), e.g. `sk_live_…`, `gtm_…`.
    public static func secret(prefix: String) throws -> String {
        prefix + base32(try SecureRandom.bytes(32))
    }

    /// An identifier of 10 random bytes, e.g. `env_…`, `key_…`.
    public static func identifier(prefix: String) throws -> String {
        prefix + base32(try SecureRandom.bytes(10))
    }

    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// RFC 4648 base32 in lowercase, without padding.
    public static func base32(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for b in bytes {
            buffer = (buffer << 8) | UInt32(b)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The stored form of a secret: its SHA-256.
    public static func hash(_ secret: String) -> [UInt8] { SHA256.hash(Array(secret.utf8)) }
}

extension RandomToken {
    /// Compares a presented secret with the expected one in constant time (for the length of the expected one).
    public static func matches(_ presented: String, _ expected: String) -> Bool {
        constantTimeEquals(SHA256.hash(Array(presented.utf8)), SHA256.hash(Array(expected.utf8)))
    }
}

extension RandomToken {
    /// Whether a presented secret hashes to a stored hash, compared in constant time.
    public static func hashMatches(_ presented: String, _ storedHash: [UInt8]) -> Bool {
        constantTimeEquals(hash(presented), storedHash)
    }
}
