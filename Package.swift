// swift-tools-version:6.0
// Gatehouse: the self-hosted management plane for mobile-app attestation.
// Module arrows (see shared DESIGN.md): gatehouse → {GatehouseWeb, Attestation}; GatehouseWeb → {Gatehouse, HTTPServer,
// Mustache, JSON}; HTTPServer → HTTP; Gatehouse → {Attestation, SQLite, Crypto, JSON}; Attestation → {Crypto, JSON}.
// Only SQLite imports CSQLite; only Crypto imports COpenSSL/CArgon2.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    products: [
        .executable(name: "gatehouse", targets: ["gatehouse"]),
    ],
    targets: [
        // System libraries (Debian packages named in `providers`; `make` installs them).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CSystem"),

        // Foundations, each publishable alone.
        .target(name: "HTTP"),
        .target(name: "HTTPServer", dependencies: ["HTTP", "CSystem"]),
        .target(name: "Mustache", exclude: ["README.md"]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "Crypto", dependencies: ["COpenSSL", "CArgon2"]),
        .target(name: "JSON"),
        .target(name: "Attestation", dependencies: ["Crypto"]),

        // The product.
        .target(name: "Gatehouse", dependencies: ["Attestation", "SQLite", "Crypto", "JSON"]),
        .target(name: "GatehouseWeb", dependencies: ["Gatehouse", "Attestation", "HTTPServer", "Mustache", "JSON"]),
        .target(name: "GatehouseTesting", dependencies: ["GatehouseWeb", "JSON"]),
        .executableTarget(name: "gatehouse", dependencies: ["GatehouseWeb", "Attestation"]),

        // Tests: one target per module.
        .testTarget(name: "HTTPTests", dependencies: ["HTTP"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"]),
        .testTarget(name: "MustacheTests", dependencies: ["Mustache"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "SQLiteCrashWriter", "ChildProcess"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "AttestationTests", dependencies: ["Attestation", "Crypto", "AttestationTesting"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "GatehouseTests", dependencies: ["Gatehouse", "JSON", "SQLite"]),
        .testTarget(name: "GatehouseWebTests", dependencies: ["GatehouseWeb", "GatehouseTesting", "ChildProcess", "SQLite", "JSON",
                                                              "Attestation", "AttestationTesting", "Crypto"]),

        // Test support: spawning child processes from tests, and a child process the SQLite crash test kills.
        .target(name: "ChildProcess", path: "Tests/Support/ChildProcess"),
        // Synthetic App Attest CA, keys, attestations and assertions, for the verifier's and the server's tests.
        .target(name: "AttestationTesting", dependencies: ["Attestation", "Crypto", "ChildProcess"],
                path: "Tests/Support/AttestationTesting"),
        .executableTarget(name: "SQLiteCrashWriter", dependencies: ["SQLite"], path: "Tests/Support/SQLiteCrashWriter"),

        // Benchmarks (`make bench`).
        .executableTarget(name: "MustacheBench", dependencies: ["Mustache"], path: "Tests/Bench/MustacheBench"),
        .executableTarget(name: "CryptoBench", dependencies: ["Crypto"], path: "Tests/Bench/CryptoBench"),
        .executableTarget(name: "AttestBench", dependencies: ["Gatehouse", "SQLite", "Crypto"], path: "Tests/Bench/AttestBench"),
        .executableTarget(name: "TrafficBench", dependencies: ["Gatehouse", "SQLite", "Crypto", "JSON"], path: "Tests/Bench/TrafficBench"),

        // Fuzz targets (`make fuzz`); a plain build gives a replay tool.
        .executableTarget(name: "HTTPParserFuzz", dependencies: ["HTTP"], path: "Tests/Fuzz/HTTPParserFuzz",
                          exclude: ["corpus", "http.dict"]),
        .executableTarget(name: "MustacheFuzz", dependencies: ["Mustache"], path: "Tests/Fuzz/MustacheFuzz",
                          exclude: ["corpus", "mustache.dict"]),
    ],
    swiftLanguageModes: [.v6]
)
