import Attestation
import Crypto

/// A key attested by ``SyntheticAppAttest``: its attestation object and what a device would sign assertions with.
public struct SyntheticKey: Sendable {
    /// The private key (the Secure Enclave's, on a device).
    public let privateKey: ECPrivateKey
    /// SHA-256 of the public key's X9.62 point.
    public let keyId: [UInt8]
    /// The app id it was attested for.
    public let appId: String
    /// The environment its aaguid names.
    public let environment: AttestationEnvironment
    /// The CBOR attestation object.
    public let attestation: [UInt8]
    /// A time (Unix seconds) inside every certificate's validity.
    public let validAt: Int64
    /// The leaf certificate's notAfter (Unix seconds).
    public let notAfter: Int64

    /// The public key.
    public var publicKey: ECPublicKey { privateKey.publicKey }

    /// An assertion (CBOR `{signature, authenticatorData}`) with `counter` over `clientDataHash`, for `rpId`
    /// (default: the attested app id), with `extensions` appended to the authenticator data as iOS 27 does (the AT
    /// flag set, no credential data, ED clear).
    ///
    /// - Throws: when signing fails.
    public func assertion(counter: UInt32, clientDataHash: [UInt8], rpId: String? = nil, extensions: [UInt8] = []) throws -> [UInt8] {
        let authenticatorData = SHA256.hash(rpId ?? appId) + [0x40] + Self.bigEndian(counter) + extensions
        let nonce = SHA256.hash(authenticatorData + clientDataHash)
        let signature = try privateKey.signature(for: nonce)
        return CBOREncoder.encode(.map([
            CBOR.Pair(.text("signature"), .bytes(signature)),
            CBOR.Pair(.text("authenticatorData"), .bytes(authenticatorData)),
        ]))
    }

    /// An assertion with `counter` over SHA-256(`clientData`).
    ///
    /// - Throws: when signing fails.
    public func assertion(counter: UInt32, clientData: [UInt8], rpId: String? = nil, extensions: [UInt8] = []) throws -> [UInt8] {
        try assertion(counter: counter, clientDataHash: SHA256.hash(clientData), rpId: rpId, extensions: extensions)
    }

    /// The state a server stores after verifying this key's attestation.
    public func state(counter: CounterWindow = .fresh) -> AttestedKeyState {
        AttestedKeyState(publicKey: publicKey, appId: appId, environment: environment, counter: counter)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
