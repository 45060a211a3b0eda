import Crypto
import Synchronization

/// Access tokens per service account key, used until shortly before they expire; concurrent callers that find none
/// share one token request instead of each making their own.
final class ServiceAccountTokenCache: Sendable {
    /// The most keys remembered; beyond it, tokens that are no longer usable are forgotten first, then all.
    static let capacity = 1024

    private enum Entry {
        case ready(ServiceAccountToken)
        case fetching(TokenFlight)
    }

    /// What a caller does after looking at the cache.
    private enum Step {
        case use(ServiceAccountToken)
        case wait(TokenFlight)
        case fetch(TokenFlight)
    }

    private let entries = Mutex<[[UInt8]: Entry]>([:])

    /// The cache key of a service account key: the SHA-256 of the whole key document, so a replaced key (a new
    /// private key, another token_uri) never uses the old one's token.
    static func key(for account: ServiceAccountKey) -> [UInt8] {
        SHA256.hash(account.document.serialized())
    }

    /// A usable token for `account` at `now`: the cached one, the one another caller is fetching (waiting at most
    /// `timeout`), or one fetched here with `fetch`.
    ///
    /// - Throws: what `fetch` throws (shared with the callers that waited on it), or
    ///   ``GoogleDecodeError/googleUnreachable(_:)`` when waiting took longer than `timeout`.
    func token(for account: ServiceAccountKey, now: Int64, timeout: Duration,
               fetch: () throws(GoogleDecodeError) -> ServiceAccountToken) throws(GoogleDecodeError) -> ServiceAccountToken {
        let key = Self.key(for: account)
        let step = entries.withLock { entries -> Step in
            switch entries[key] {
            case .ready(let token) where token.isUsable(at: now):
                return .use(token)
            case .fetching(let flight):
                return .wait(flight)
            default:
                let flight = TokenFlight()
                Self.makeRoom(in: &entries, now: now)
                entries[key] = .fetching(flight)
                return .fetch(flight)
            }
        }
        switch step {
        case .use(let token):
            return token
        case .wait(let flight):
            return try flight.wait(atMost: timeout)
        case .fetch(let flight):
            let result: Result<ServiceAccountToken, GoogleDecodeError>
            do throws(GoogleDecodeError) {
                result = .success(try fetch())
            } catch {
                result = .failure(error)
            }
            entries.withLock { entries in
                guard case .fetching(let current) = entries[key], current === flight else { return }
                if case .success(let token) = result { entries[key] = .ready(token) } else { entries[key] = nil }
            }
            flight.finish(result)
            return try result.get()
        }
    }

    /// Forgets `token` for `account` (Google refused it), unless a newer one replaced it already.
    func drop(_ token: ServiceAccountToken, for account: ServiceAccountKey) {
        let key = Self.key(for: account)
        entries.withLock { entries in
            if case .ready(let cached) = entries[key], cached == token { entries[key] = nil }
        }
    }

    private static func makeRoom(in entries: inout [[UInt8]: Entry], now: Int64) {
        guard entries.count >= capacity else { return }
        entries = entries.filter { _, entry in
            if case .ready(let token) = entry { return token.isUsable(at: now) }
            return true
        }
        if entries.count >= capacity {
            entries = entries.filter { _, entry in
                if case .fetching = entry { return true }
                return false
            }
        }
    }
}
