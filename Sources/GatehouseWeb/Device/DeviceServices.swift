import Attestation
import Foundation
import Gatehouse
import HTTPServer

/// The device side of Gatehouse assembled (the device API's services, not a verification itself): the App Attest service over the configured roots, the recorder of its verdicts, the rate limiters, and a background purge of expired
/// challenges. `Application` registers its routes, starts it with the server and stops it on shutdown (which writes
/// the verdicts still queued).
public final class DeviceServices: Sendable {
    public let service: AppAttestService
    public let recorder: VerdictRecorder
    /// Signed requests judged whole, with their receipts.
    public let assess: AssessService
    /// Play Integrity: local decoding, decoding through Google (one decoder made at start-up), the replay store.
    public let playIntegrity: PlayIntegrityService
    /// Receipts checked for backends, and spent once when asked.
    public let receiptChecker: ReceiptChecker
    let api: DeviceAPI
    let assessAPI: AssessAPI
    /// The purge of expired challenges, spent nonces, past days' key devices, spent Play Integrity tokens and spent
    /// receipts, every minute.
    private let purge = PeriodicJob(name: "gh-challenges")

    /// Builds the device side; with `configuration.appAttestRoots` set, the roots come from that PEM file (logged as
    /// a warning), else Apple's built-in root.
    /// - Throws: `ConfigurationError` when the roots cannot be read.
    public init(configuration: Configuration, services: Services, logger: Logger) throws {
        let roots = try Self.roots(configuration, logger: logger)
        let store = services.store
        recorder = VerdictRecorder(verdicts: services.verdicts) { error in
            logger.error("device verdicts could not be written to traffic", ["error": .string("\(error)")])
        }
        service = AppAttestService(store: store, roots: roots, recorder: recorder)
        playIntegrity = PlayIntegrityService(store: store, google: try Self.googleDecoder(configuration, clock: store.clock), recorder: recorder,
                                             googleDecodesPerAddress: configuration.googleDecodesPerAddress)
        assess = AssessService(store: store, appAttest: service, playIntegrity: playIntegrity, recorder: recorder,
                               receipts: services.receipts, tally: services.assessTally)
        receiptChecker = ReceiptChecker(store: store, keys: services.receiptKeys)
        let addressLimiter = RateLimiter(rate: configuration.deviceRatePerAddress, burst: configuration.deviceRatePerAddress * 2, clock: store.clock.monotonic)
        let keyLimiter = RateLimiter(rate: configuration.deviceRatePerKey, burst: configuration.deviceRatePerKey * 2, clock: store.clock.monotonic)
        let clientAddress = ClientAddress(trustedProxies: configuration.trustedProxies)
        api = DeviceAPI(service: service, addressLimiter: addressLimiter, clientAddress: clientAddress, keyLimiter: keyLimiter)
        assessAPI = AssessAPI(service: assess, appAttest: service, addressLimiter: addressLimiter, clientAddress: clientAddress,
                              keyLimiter: keyLimiter)
    }

    static func roots(_ configuration: Configuration, logger: Logger) throws -> AppAttestRoots {
        guard let file = configuration.appAttestRoots else {
            do {
                return try AppAttestRoots.apple()
            } catch {
                throw ConfigurationError("\(error)")
            }
        }
        let pem: String
        do {
            pem = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw ConfigurationError("--app-attest-roots / GATEHOUSE_APP_ATTEST_ROOTS: cannot read \(file)")
        }
        let roots: AppAttestRoots
        do {
            roots = try AppAttestRoots(pem: pem)
        } catch {
            throw ConfigurationError("--app-attest-roots / GATEHOUSE_APP_ATTEST_ROOTS: \(file) holds no usable PEM certificate (\(error))")
        }
        if !roots.isApple {
            logger.warning("App Attest roots replaced: attestations are trusted when they chain to the certificates of this file, not to Apple's App Attestation Root CA",
                           ["file": .string(file), "certificates": .int(roots.certificates.count)])
        }
        return roots
    }

    /// Adds the device routes through `add` (method, pattern, handler).
    func register(_ add: (String, String, @escaping Router.Handler) -> Void) {
        add("POST", "/api/v4/attestation/challenge", api.challenge)
        add("POST", "/api/v4/attestation/app-attest", api.register)
        add("POST", "/api/v4/attestation/app-attest/assertion", api.assertion)
        add("POST", "/api/v4/attestation/play-integrity", PlayIntegrityAPI(device: api, service: playIntegrity).judge)
        add("POST", "/api/v4/assess", assessAPI.assess)
    }

    /// Starts the verdict recorder and the challenge purge (once).
    func start(logger: Logger) {
        recorder.start()
        purge.start { [service, assess, playIntegrity, receiptChecker] in
            do {
                try service.purgeExpiredChallenges()
                try assess.purge()
            } catch {
                logger.error("purging expired challenges and nonces failed", ["error": .string("\(error)")])
            }
            do {
                try playIntegrity.purgeExpired()
            } catch {
                logger.error("purging spent and failed Play Integrity tokens failed", ["error": .string("\(error)")])
            }
            do {
                try receiptChecker.purgeExpired()
            } catch {
                logger.error("purging spent receipts failed", ["error": .string("\(error)")])
            }
            return 60
        }
    }

    /// Stops the purge and writes every verdict still queued (the graceful-shutdown path).
    func stop() {
        purge.stop()
        recorder.stop()
    }
}
