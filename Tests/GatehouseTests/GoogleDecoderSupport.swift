import DomainTesting
import Crypto
import FakeGoogle
import Foundation
import Gatehouse
import JSON
import Synchronization

/// A fake service account whose token_uri is the fake Google's, with a random RSA key made once per test process.
struct FakeServiceAccount {
    static let privateKey: Result<RSAPrivateKey, any Error> = Result { try RSAPrivateKey.generate() }
    static let clientEmail = "gatehouse-test@example-project.iam.gserviceaccount.com"

    let key: ServiceAccountKey
    let tokenURI: String
    let privateKey: RSAPrivateKey

    /// `tokenQuery` is appended to the token endpoint's URL (`status=401`, `delay=3`…) to choose its answer.
    init(fake: FakeGoogle, tokenQuery: String = "") throws {
        privateKey = try Self.privateKey.get()
        tokenURI = fake.baseURL + "/token" + (tokenQuery.isEmpty ? "" : "?" + tokenQuery)
        let document: JSON = [
            "type": "service_account", "project_id": "example-project", "private_key_id": "kid-1",
            "private_key": .string(privateKey.pkcs8PEM), "client_email": .string(Self.clientEmail),
            "client_id": "1234567890", "token_uri": .string(tokenURI),
        ]
        var errors = FieldErrors()
        guard let key = PlayIntegrityFields.serviceAccount(document, at: "/serviceAccount", tokenEndpoints: TokenEndpoints(extraHosts: [fake.authority]), errors: &errors) else {
            throw FakeGoogleError(description: "the fake service account does not validate: \(errors.errors)")
        }
        self.key = key
    }
}

extension FakeGoogle {
    /// A decoder that calls this fake, with `configure` applied to its settings.
    func decoder(clock: TestClock = TestClock(),
                 _ configure: (inout GoogleDecoderConfiguration) -> Void = { _ in }) throws -> GoogleDecoder {
        var configuration = GoogleDecoderConfiguration(endpoint: baseURL, caFile: caFile, tokenEndpoints: TokenEndpoints(extraHosts: [authority]))
        configure(&configuration)
        return try GoogleDecoder(configuration: configuration, clock: TimeSource(wall: { clock.now }))
    }

    /// The requests to the token endpoint so far.
    func tokenRequests() throws -> [ReceivedRequest] {
        try received().filter { $0.path == "/token" }
    }

    /// The requests to decodeIntegrityToken so far.
    func decodeRequests() throws -> [ReceivedRequest] {
        try received().filter { $0.path.hasSuffix(":decodeIntegrityToken") }
    }
}

/// The fields of an `application/x-www-form-urlencoded` body.
func formFields(_ body: String) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in body.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { continue }
        fields[parts[0].removingPercentEncoding ?? parts[0]] = parts[1].removingPercentEncoding ?? parts[1]
    }
    return fields
}

/// A JWS compact serialization taken apart: header and claims parsed, the signing input and signature as bytes.
struct ReceivedJWT {
    let header: JSON
    let claims: JSON
    let signingInput: [UInt8]
    let signature: [UInt8]

    init(_ compact: String) throws {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Base64.decode(parts[0]), let claims = Base64.decode(parts[1]),
              let signature = Base64.decode(parts[2]) else {
            throw FakeGoogleError(description: "not a JWS compact serialization")
        }
        self.header = try JSONParser.parse(header)
        self.claims = try JSONParser.parse(claims)
        signingInput = Array((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }
}
