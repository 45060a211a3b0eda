import Locks
import Dispatch
import HTTPClient
import JSON
import Synchronization

/// Decodes Play Integrity tokens through Google with an environment's service account: the OAuth 2.0 JWT-bearer
/// grant (RFC 7523) to the key's `token_uri` for an access token, cached until shortly before it expires and shared
/// by concurrent callers, then `POST {endpoint}/v1/{packageName}:decodeIntegrityToken`.
///
/// A decode blocks the calling thread for at most ``GoogleDecoderConfiguration/timeout`` in all. At most
/// ``GoogleDecoderConfiguration/maxConcurrentCalls`` decodes run at once, counting those that wait for another's
/// access-token request; the next waits at most ``GoogleDecoderConfiguration/queueTimeout`` and then fails as
/// `googleUnreachable`, so a slow Google holds at most that many request workers. One instance is meant to be shared.
public final class GoogleDecoder: Sendable {
    /// The settings it was made with.
    public let configuration: GoogleDecoderConfiguration
    private let client: HTTPClient
    private let tokens = ServiceAccountTokenCache()
    private let slots: DispatchSemaphore
    private let running = Atomic<Int>(0)
    private let clock: TimeSource
    private let endpoint: String

    /// A decoder for `configuration`; `clock` (Unix seconds) dates the JWT and ages the cached access tokens.
    ///
    /// - Throws: ``HTTPClientError/invalidConfiguration(_:)`` when the endpoint is not an https URL, the CA file
    ///   cannot be read, or a limit is below 1: at start-up, with a message that says which.
    public init(configuration: GoogleDecoderConfiguration = GoogleDecoderConfiguration(),
                clock: TimeSource = .system) throws {
        guard configuration.endpoint.lowercased().hasPrefix("https://") else {
            throw HTTPClientError.invalidConfiguration("the Play Integrity endpoint must be an https:// URL")
        }
        guard configuration.timeout > .zero else {
            throw HTTPClientError.invalidConfiguration("the Play Integrity timeout must be above zero")
        }
        client = try HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: min(.seconds(5), configuration.timeout), totalTimeout: configuration.timeout,
            caFile: configuration.caFile, maxConcurrentCalls: configuration.maxConcurrentCalls,
            queueTimeout: configuration.queueTimeout, maxResponseBytes: 256 * 1024))
        self.configuration = configuration
        slots = DispatchSemaphore(value: configuration.maxConcurrentCalls)
        self.clock = clock
        var endpoint = configuration.endpoint
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        self.endpoint = endpoint
    }

    /// Google's decoding of `integrityToken` for `packageName`: the `tokenPayloadExternal` object, to be judged
    /// like a locally decoded payload.
    ///
    /// `sent` is called once the `decodeIntegrityToken` request has gone out (whatever Google then answers, or not):
    /// what counts against the project's quota.
    ///
    /// - Throws: ``GoogleDecodeError``: `googleUnreachable` (no answer, 5xx or 429, not within the time limit, too
    ///   many calls in flight), `serviceAccountRejected` (401/403; the cached access token is dropped),
    ///   `tokenNotDecodable` (400), `invalidPackageName` (nothing sent).
    public func decode(integrityToken: String, packageName: String, serviceAccount: ServiceAccountKey,
                       sent: () -> Void = {}) throws(GoogleDecodeError) -> JSON {
        guard PackageName.isValid(packageName) else { throw .invalidPackageName }
        guard slots.wait(timeout: .now() + .milliseconds(min(configuration.queueTimeout.milliseconds(), 86_400_000))) == .success else {
            throw .googleUnreachable("too many decodes through Google in flight")
        }
        running.add(1, ordering: .relaxed)
        defer {
            running.subtract(1, ordering: .relaxed)
            slots.signal()
        }
        return try decodeHoldingSlot(integrityToken: integrityToken, packageName: packageName, serviceAccount: serviceAccount, sent: sent)
    }

    /// How many decodes are running now (for metrics and tests).
    public var decodesInFlight: Int { running.load(ordering: .relaxed) }

    private func decodeHoldingSlot(integrityToken: String, packageName: String, serviceAccount: ServiceAccountKey,
                                   sent: () -> Void) throws(GoogleDecodeError) -> JSON {
        let deadline = ContinuousClock.now + configuration.timeout
        let token = try tokens.token(for: serviceAccount, now: clock(), timeout: remaining(until: deadline)) {
            () throws(GoogleDecodeError) -> ServiceAccountToken in
            try fetchToken(for: serviceAccount, deadline: deadline)
        }
        let request = OutboundRequest(
            method: .post, url: endpoint + "/v1/" + packageName + ":decodeIntegrityToken",
            headers: [("Authorization", "Bearer " + token.value), ("Content-Type", "application/json"),
                      ("Accept", "application/json")],
            body: JSON.object([JSON.Member("integrityToken", .string(integrityToken))]).serialized(),
            timeout: try remaining(until: deadline))
        let response = try call(request, ifRefused: .googleUnreachable("the Play Integrity endpoint cannot be called"), sent: sent)
        switch response.status {
        case 200:
            guard let answer = try? JSONParser.parse(response.body), let payload = answer["tokenPayloadExternal"],
                  payload.members != nil else {
                throw .googleUnreachable("Google's answer has no tokenPayloadExternal object")
            }
            return payload
        case 401, 403:
            tokens.drop(token, for: serviceAccount)
            throw .serviceAccountRejected("decodeIntegrityToken answered \(response.status)")
        case 400:
            throw .tokenNotDecodable(status: response.status)
        default:
            throw .googleUnreachable("decodeIntegrityToken answered \(response.status)")
        }
    }

    /// The JWT-bearer grant: a signed assertion posted to the key's `token_uri`.
    private func fetchToken(for account: ServiceAccountKey,
                            deadline: ContinuousClock.Instant) throws(GoogleDecodeError) -> ServiceAccountToken {
        guard let tokenURI = account.document["token_uri"]?.string else {
            throw .serviceAccountRejected("the service account key has no token_uri")
        }
        // The signed assertion buys an access token from whoever receives it: never sent anywhere but allowed hosts.
        guard configuration.tokenEndpoints.allows(tokenURI) else {
            throw .serviceAccountRejected("the service account's token_uri is not Google's token endpoint (\(TokenEndpoints.google)); nothing was sent")
        }
        let assertion = try ServiceAccountAssertion.make(for: account, issuedAt: clock())
        let request = OutboundRequest(
            method: .post, url: tokenURI,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: ServiceAccountAssertion.formBody(assertion: assertion), timeout: try remaining(until: deadline))
        let response = try call(request, ifRefused: .serviceAccountRejected("the service account's token_uri cannot be called"))
        switch response.status {
        case 200:
            return try ServiceAccountToken(response: response.body, receivedAt: clock())
        case 400, 401, 403:
            throw .serviceAccountRejected("the token endpoint answered \(response.status)" + Self.oauthError(response.body))
        default:
            throw .googleUnreachable("the token endpoint answered \(response.status)")
        }
    }

    /// Sends `request`, mapping the client's failures to `googleUnreachable`, or to `refused` when the client would
    /// not send it (a URL it cannot call); `sent` is called unless the client did not send it (busy, refused).
    private func call(_ request: OutboundRequest, ifRefused refused: GoogleDecodeError,
                      sent: () -> Void = {}) throws(GoogleDecodeError) -> OutboundResponse {
        do {
            let response = try client.send(request)
            sent()
            return response
        } catch {
            switch error {
            case .busy, .invalidRequest: break
            default: sent()
            }
            switch error {
            case .timedOut: throw .googleUnreachable("no answer within \(configuration.timeout)")
            case .busy: throw .googleUnreachable("too many calls to Google in flight")
            case .invalidRequest: throw refused
            default: throw .googleUnreachable(error.description)
            }
        }
    }

    /// What is left of the time budget.
    private func remaining(until deadline: ContinuousClock.Instant) throws(GoogleDecodeError) -> Duration {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw .googleUnreachable("no answer within \(configuration.timeout)") }
        return left
    }

    /// `: <error>` from an RFC 6749 §5.2 error answer when its code is a plain word (`invalid_grant`), else "".
    private static func oauthError(_ body: [UInt8]) -> String {
        guard let code = (try? JSONParser.parse(body))?["error"]?.string, code.utf8.count <= 64,
              code.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 >= 0x61 && $0 <= 0x7A) }) else { return "" }
        return ": " + code
    }
}
