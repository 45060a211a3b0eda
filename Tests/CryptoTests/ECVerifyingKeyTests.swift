import Crypto
import Foundation
import Synchronization
import Testing

/// The verifier that keeps OpenSSL's parsed key answers exactly as `ECPublicKey` does, from many threads.
@Suite struct ECVerifyingKeyTests {
    @Test func answersAsThePublicKeyDoes() throws {
        let key = try ECPrivateKey.generate()
        let verifier = try ECVerifyingKey(key.publicKey)
        let message = Array("header.payload".utf8)
        let raw = try key.signature(for: message, format: .raw)
        let der = try key.signature(for: message, format: .der)
        var flipped = raw
        flipped[10] ^= 1
        let cases: [([UInt8], ECPublicKey.SignatureFormat, [UInt8])] = [
            (raw, .raw, message), (der, .der, message), (raw, .raw, Array("header.payloaD".utf8)), (flipped, .raw, message),
            (Array(raw.prefix(63)), .raw, message), ([], .der, message), (raw, .der, message), (der, .raw, message),
        ]
        for (signature, format, signed) in cases {
            #expect(verifier.isValidSignature(signature, format: format, for: signed) == key.publicKey.isValidSignature(signature, format: format, for: signed))
        }
        #expect(verifier.isValidSignature(raw, format: .raw, for: message))
        #expect(!(try ECVerifyingKey(try ECPrivateKey.generate().publicKey)).isValidSignature(raw, format: .raw, for: message))
    }

    @Test func oneVerifierServesManyThreads() throws {
        let key = try ECPrivateKey.generate()
        let verifier = try ECVerifyingKey(key.publicKey)
        let message = Array("concurrent".utf8)
        let signature = try key.signature(for: message, format: .raw)
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for _ in 0..<200 {
                let valid = verifier.isValidSignature(signature, format: .raw, for: i % 2 == 0 ? message : [UInt8](message.reversed()))
                if valid != (i % 2 == 0) { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
