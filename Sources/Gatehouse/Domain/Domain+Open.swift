import Attestation
import Foundation

extension Domain {
    /// Opens the domain: the store (creating and migrating the database, waiting for another server's migrations on
    /// PostgreSQL), the master key, the App Attest roots and the one decoder through Google; `clock` is now and
    /// `random` draws the jitter of retries (0…1), both the system's unless a test gives its own. Nothing runs in the
    /// background until ``start()``, and nothing is written beyond the migrations (no receipt key: a server makes the
    /// first with `receiptKeys.prepare()`).
    /// - Throws: `ConfigurationError` (roots or Google settings that cannot be used, a master key to set),
    ///   `StoreError`, `MigrationError`.
    public static func open(_ configuration: DomainConfiguration, clock: TimeSource = .system,
                            random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }, log: DomainLog = .silent) throws -> Domain {
        let key = try Store.masterKey(environmentValue: configuration.masterKey, keyFilePath: configuration.keyFilePath)
        let (store, applied) = configuration.location.isPostgres
            ? try Store.open(postgresURL: configuration.database, migrationsDirectory: configuration.migrationsDirectory, masterKey: key,
                             poolSize: configuration.databasePool, durability: configuration.durability,
                             preparedStatements: configuration.databasePreparedStatements, clock: clock, waiting: { seconds in
                                 if seconds % 10 == 0 { log.info("waiting for another server's migrations", ["seconds": String(seconds)]) }
                             })
            : try Store.open(path: configuration.database, migrationsDirectory: configuration.migrationsDirectory,
                             masterKey: key, durability: configuration.durability, clock: clock)
        for name in applied { log.info("migration applied", ["file": name]) }
        return try Domain(configuration: configuration, store: store, roots: try roots(configuration, log: log),
                          receiptRoots: try receiptRoots(configuration, log: log),
                          keyAttestationRoots: try keyAttestationRoots(configuration, log: log),
                          google: try googleDecoder(configuration, clock: clock), random: random, log: log)
    }

    /// The App Attest roots: `configuration.appAttestRoots` (a PEM file, logged as a warning), else Apple's built-in
    /// root.
    /// - Throws: `ConfigurationError` when the roots cannot be read.
    static func roots(_ configuration: DomainConfiguration, log: DomainLog) throws -> AppAttestRoots {
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
            log.warning("App Attest roots replaced: attestations are trusted when they chain to the certificates of this file, not to Apple's App Attestation Root CA",
                        ["file": file, "certificates": String(roots.certificates.count)])
        }
        return roots
    }

    /// The App Attest receipt roots: `configuration.appAttestReceiptRoots` (a PEM file, logged as a warning), else
    /// Apple Root CA - G3, built in.
    /// - Throws: `ConfigurationError` when the roots cannot be read.
    static func receiptRoots(_ configuration: DomainConfiguration, log: DomainLog) throws -> AppAttestRoots {
        guard let file = configuration.appAttestReceiptRoots else {
            do {
                return try AppAttestRoots.appleReceipts()
            } catch {
                throw ConfigurationError("\(error)")
            }
        }
        let roots: AppAttestRoots
        do {
            roots = try AppAttestRoots(pem: try String(contentsOfFile: file, encoding: .utf8))
        } catch {
            throw ConfigurationError("--app-attest-receipt-roots / GATEHOUSE_APP_ATTEST_RECEIPT_ROOTS: \(file) cannot be read as PEM certificates (\(error))")
        }
        if !roots.isAppleReceipts {
            log.warning("App Attest receipt roots replaced: receipts are trusted when their signer chains to the certificates of this file, not to Apple Root CA - G3",
                        ["file": file, "certificates": String(roots.certificates.count)])
        }
        return roots
    }

    /// Google's key attestation roots, or `configuration.keyAttestationRoots` (a PEM file, logged as a warning).
    /// - Throws: `ConfigurationError` when the roots cannot be read.
    static func keyAttestationRoots(_ configuration: DomainConfiguration, log: DomainLog) throws -> KeyAttestationRoots {
        guard let file = configuration.keyAttestationRoots else {
            do {
                return try KeyAttestationRoots.google()
            } catch {
                throw ConfigurationError("\(error)")
            }
        }
        let roots: KeyAttestationRoots
        do {
            roots = try KeyAttestationRoots(pem: try String(contentsOfFile: file, encoding: .utf8))
        } catch {
            throw ConfigurationError("--key-attestation-roots / GATEHOUSE_KEY_ATTESTATION_ROOTS: \(file) cannot be read as PEM certificates (\(error))")
        }
        if !roots.isGoogle {
            log.warning("Key attestation roots replaced: Android keys are trusted when their chains end at the keys of this file, not at Google's attestation roots",
                        ["file": file, "roots": String(roots.keys.count)])
        }
        return roots
    }

    /// The one decoder through Google, for `--play-integrity-endpoint` and `--outbound-ca-file`.
    /// - Throws: `ConfigurationError` when the endpoint is not https or the CA file cannot be read.
    static func googleDecoder(_ configuration: DomainConfiguration, clock: TimeSource) throws -> GoogleDecoder {
        do {
            return try GoogleDecoder(configuration: GoogleDecoderConfiguration(endpoint: configuration.playIntegrityEndpoint,
                                                                              caFile: configuration.outboundCAFile,
                                                                              tokenEndpoints: configuration.tokenEndpoints),
                                     clock: clock)
        } catch {
            throw ConfigurationError("--play-integrity-endpoint / --outbound-ca-file: \(error)")
        }
    }
}
