import Crypto
import Testing

@Suite struct AESKeyWrapTests {
    static let kek = "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"

    /// RFC 3394 §4.3 (128 bits of key data) and §4.6 (256 bits), both under a 256-bit KEK.
    @Test(arguments: [
        ("00112233445566778899AABBCCDDEEFF", "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7"),
        ("00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F",
         "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21"),
    ])
    func matchesRFC3394(keyData: String, wrapped: String) throws {
        let kek = try hex(Self.kek)
        #expect(try AESKeyWrap.wrap(try hex(keyData), key: kek) == (try hex(wrapped)))
        #expect(try AESKeyWrap.unwrap(try hex(wrapped), key: kek) == (try hex(keyData)))
    }

    @Test func unwrapFailsItsIntegrityCheckOnAWrongKeyOrAlteredBytes() throws {
        let kek = try SecureRandom.bytes(32)
        let cek = try SecureRandom.bytes(32)
        let wrapped = try AESKeyWrap.wrap(cek, key: kek)
        #expect(wrapped.count == 40)
        #expect(try AESKeyWrap.unwrap(wrapped, key: kek) == cek)
        #expect(throws: CryptoError.self) { try AESKeyWrap.unwrap(wrapped, key: try SecureRandom.bytes(32)) }
        for index in [0, 7, 8, 39] {
            var altered = wrapped
            altered[index] ^= 0x01
            #expect(throws: CryptoError.self) { try AESKeyWrap.unwrap(altered, key: kek) }
        }
    }

    @Test func refusesWrongLengthsWithoutQuotingBytes() throws {
        let kek = try SecureRandom.bytes(32)
        let wrapped = try AESKeyWrap.wrap(try SecureRandom.bytes(32), key: kek)
        for bad in [[], Array(wrapped.prefix(16)), Array(wrapped.dropLast()), wrapped + [0]] {
            #expect(throws: CryptoError.self) { try AESKeyWrap.unwrap(bad, key: kek) }
        }
        #expect(throws: CryptoError.self) { try AESKeyWrap.unwrap(wrapped, key: Array(kek.prefix(16))) }
        #expect(throws: CryptoError.self) { try AESKeyWrap.wrap([1, 2, 3], key: kek) }
        do {
            _ = try AESKeyWrap.unwrap(wrapped, key: try SecureRandom.bytes(32))
        } catch {
            #expect(!"\(error)".contains(Hex.encode(wrapped)))
            #expect("\(error)".contains("integrity"))
        }
    }
}
