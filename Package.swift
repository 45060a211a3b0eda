// swift-tools-version:6.0
// Gatehouse: the self-hosted management plane for mobile-app attestation.
// Module arrows (docs/architecture.md "Layers and modules"): gatehouse → {GatehouseWeb, Gatehouse, HTTPServer, Attestation, Simulator, GatehouseReceipts, Crypto, JSON};
// Simulator → {Attestation, GatehouseReceipts, Crypto, JSON} (a phone played against a server: it knows no server code);
// GatehouseWeb → {Gatehouse, Attestation, GatehouseReceipts, HTTPServer, HTTP, Locks, Mustache, Crypto, JSON}; HTTPServer → {HTTP, Locks}; HTTP → Locks;
// Gatehouse → {Attestation, GatehouseReceipts, HTTPClient, SQLite, PostgreSQL, Storage, Locks, Crypto, JSON, SeededRandom};
// Attestation → {Crypto, JSON}; GatehouseReceipts → {Crypto, JSON}; SQLite → {Locks, Storage}; PostgreSQL → {CLibPQ, Locks, Storage};
// HTTPClient → {CCurl, Locks}.
// Storage is the seam between the store and its engines (docs/architecture.md "Storage: one seam, two engines"): values, rows read
// strictly, one failure type, the database/connection protocols an engine implements, and the migration files every
// engine applies; it imports nothing but the C library. Only SQLite imports CSQLite, only PostgreSQL imports CLibPQ; only Crypto imports COpenSSL/CArgon2; only HTTPClient imports CCurl; only Gatehouse imports SQLite
// and PostgreSQL, and there only Store/Engines/ (check_imports.py): the rest of the domain sees Storage. The web layer and the executable
// import no database module.
// Locks holds the one ConditionLock (a pthread mutex with a condition variable, for threads that wait for a state:
// the server's worker queue, the engines' connection pool, SQLite's fair writer lock), and BlockingRegion (a group commit's waiter
// tells the server's worker pool that it sleeps, so that another worker takes the CPU), and Duration in the units the C
// libraries and deadlines take (nanoseconds, milliseconds, seconds). HTTPServer, SQLite and the
// store know nothing of each other, so what they share lives below them all; a plain mutex is Synchronization.Mutex.
// The domain opens itself (Sources/Gatehouse/Domain: Domain.open(DomainConfiguration), start(), stop()): the store (which
// keeps no cache) and one instance of each service, each owning what it caches. GatehouseWeb builds its routes over an
// opened Domain and names no Store, service constructor or cache; of the executable only Serve.swift imports
// GatehouseWeb, the one-shot commands open a Domain alone (check_imports.py holds all three).
// SeededRandom holds the one deterministic generator (the demo traffic, property tests and benches replay their data).
// A module imports only what its target declares here.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    products: [
        .executable(name: "gatehouse", targets: ["gatehouse"]),
        // What an app's backend embeds to check receipts and request proofs offline.
        .library(name: "GatehouseReceipts", targets: ["GatehouseReceipts"]),
    ],
    targets: [
        // System libraries (Debian packages named in `providers`; `make` installs them).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSystem"),

        // Foundations, each publishable alone.
        .target(name: "HTTP", dependencies: ["Locks"]),
        .target(name: "Locks"),
        .target(name: "HTTPServer", dependencies: ["HTTP", "Locks", "CSystem"]),
        .target(name: "Mustache", exclude: ["README.md"]),
        .target(name: "Storage"),
        .target(name: "SQLite", dependencies: ["CSQLite", "Locks", "Storage"]),
        .target(name: "PostgreSQL", dependencies: ["CLibPQ", "Locks", "Storage"]),
        .target(name: "Crypto", dependencies: ["COpenSSL", "CArgon2"]),
        .target(name: "JSON"),
        .target(name: "SeededRandom"),
        .target(name: "HTTPClient", dependencies: ["CCurl", "Locks"]),
        .target(name: "Attestation", dependencies: ["Crypto", "JSON"]),
        .target(name: "GatehouseReceipts", dependencies: ["Crypto", "JSON"]),
        // A phone played for people and tests (`gatehouse simulate`): signed requests, a synthetic App Attest CA, Play
        // Integrity tokens minted with local keys, and plain HTTP to a server on loopback.
        .target(name: "Simulator", dependencies: ["Attestation", "GatehouseReceipts", "Crypto", "JSON"]),

        // The product.
        .target(name: "Gatehouse", dependencies: ["Attestation", "GatehouseReceipts", "HTTPClient", "SQLite", "PostgreSQL", "Storage", "Locks", "Crypto", "JSON", "SeededRandom"]),
        .target(name: "GatehouseWeb", dependencies: ["Gatehouse", "Attestation", "GatehouseReceipts", "HTTPServer", "HTTP", "Locks", "Mustache", "Crypto", "JSON"]),
        .target(name: "GatehouseTesting", dependencies: ["GatehouseWeb", "Gatehouse", "DomainTesting", "TestSupport", "HTTP", "HTTPServer", "JSON", "ThrowawayPostgres"]),
        .executableTarget(name: "gatehouse", dependencies: ["GatehouseWeb", "Gatehouse", "HTTPServer", "Attestation", "Simulator",
                                                           "GatehouseReceipts", "Crypto", "JSON"]),

        // Tests: one target per module.
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "SeededRandom"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTP", "Locks", "TestSupport", "ChildProcess"]),
        .testTarget(name: "MustacheTests", dependencies: ["Mustache", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "StorageTests", dependencies: ["Storage"]),
        .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL", "Storage", "ThrowawayPostgres", "TestThreads", "TestSupport"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "Storage", "SQLiteCrashWriter", "ChildProcess", "TestSupport"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "TestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "FakeGoogle", "TestSupport"]),
        .testTarget(name: "AttestationTests", dependencies: ["Attestation", "Crypto", "JSON", "AttestationTesting", "ChildProcess", "TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "GatehouseReceiptsTests", dependencies: ["GatehouseReceipts", "Crypto", "JSON", "TestSupport"]),
        .testTarget(name: "GatehouseTests", dependencies: ["Gatehouse", "GatehouseReceipts", "JSON", "HTTPClient", "Crypto", "SQLite", "Storage", "FakeGoogle", "Simulator", "TestThreads", "ThrowawayPostgres",
                                                          "PostgreSQL", "Attestation", "AttestationTesting", "DomainTesting", "TestSupport"]),
        .testTarget(name: "GatehouseWebTests", dependencies: ["GatehouseWeb", "GatehouseTesting", "Gatehouse", "HTTP", "HTTPServer", "HTTPClient",
                                                              "ChildProcess", "TestThreads", "SQLite", "Storage", "JSON", "GatehouseReceipts", "Crypto",
                                                              "Attestation", "AttestationTesting", "FakeGoogle", "Simulator", "ThrowawayPostgres", "PostgreSQL", "TestSupport", "DomainTesting"]),

        // Test support: threads released together (one winner among concurrent callers), spawning child processes
        // from tests, and a child process the SQLite crash test kills.
        .target(name: "TestThreads", path: "Tests/Support/TestThreads"),
        // The one temporary folder of the test targets.
        .target(name: "TestSupport", path: "Tests/Support/TestSupport", resources: [.copy("Fixtures")]),
        // The domain opened on either engine with the one test clock (the domain tests; the web's TestApp builds on it).
        .target(name: "DomainTesting", dependencies: ["Gatehouse", "TestSupport", "ThrowawayPostgres"], path: "Tests/Support/DomainTesting"),
        .target(name: "ThrowawayPostgres", dependencies: ["PostgreSQL", "ChildProcess", "TestSupport"], path: "Tests/Support/ThrowawayPostgres"),
        .target(name: "ChildProcess", path: "Tests/Support/ChildProcess"),
        // A fake Google over TLS (Tests/EndToEnd/fake_google.py) with a throwaway CA, for HTTPClient and the decoder.
        .target(name: "FakeGoogle", dependencies: ["ChildProcess", "HTTPClient", "TestSupport"], path: "Tests/Support/FakeGoogle"),
        // Synthetic App Attest CA, keys, attestations and assertions, for the verifier's and the server's tests.
        .target(name: "AttestationTesting", dependencies: ["Simulator"], path: "Tests/Support/AttestationTesting"),
        // What the signed-request benches share: their database with one environment, and the wrk script that rotates
        // through pre-built request bodies.
        .target(name: "BenchSupport", dependencies: ["Gatehouse", "SQLite", "PostgreSQL", "Storage", "Crypto"], path: "Tests/Support/BenchSupport"),
        .executableTarget(name: "SQLiteCrashWriter", dependencies: ["SQLite", "Storage"], path: "Tests/Support/SQLiteCrashWriter"),
        // The replay `main` of the fuzz targets' plain builds (reads the files named and runs the checks on each).
        .target(name: "FuzzReplay", path: "Tests/Support/FuzzReplay"),

        // Benchmarks (`make bench`).
        .executableTarget(name: "MustacheBench", dependencies: ["Mustache"], path: "Tests/Bench/MustacheBench"),
        .executableTarget(name: "CryptoBench", dependencies: ["Crypto"], path: "Tests/Bench/CryptoBench"),
        .executableTarget(name: "AttestBench", dependencies: ["BenchSupport", "Gatehouse", "SQLite", "Storage", "Crypto"], path: "Tests/Bench/AttestBench"),
        .executableTarget(name: "AssessBench", dependencies: ["BenchSupport", "Gatehouse", "GatehouseReceipts", "Crypto", "JSON", "AttestationTesting"],
                          path: "Tests/Bench/AssessBench"),
        .executableTarget(name: "PIBench", dependencies: ["BenchSupport", "Gatehouse", "Attestation", "Crypto", "JSON", "AttestationTesting"], path: "Tests/Bench/PIBench"),
        // The receipt conformance vectors of the three receipt libraries (`make receipt-vectors`).
        .executableTarget(name: "ReceiptVectors", dependencies: ["GatehouseReceipts", "Crypto", "JSON"], path: "Tests/Tools/ReceiptVectors"),
        .executableTarget(name: "TrafficBench", dependencies: ["Gatehouse", "SQLite", "Storage", "Crypto", "JSON", "SeededRandom"], path: "Tests/Bench/TrafficBench"),

        // Fuzz targets (`make fuzz`); a plain build gives a replay tool.
        .executableTarget(name: "HTTPParserFuzz", dependencies: ["HTTP", "FuzzReplay"], path: "Tests/Fuzz/HTTPParserFuzz",
                          exclude: ["corpus", "http.dict"]),
        .executableTarget(name: "HTTPConnectionFuzz", dependencies: ["HTTP", "FuzzReplay"], path: "Tests/Fuzz/HTTPConnectionFuzz",
                          exclude: ["corpus"]),
        .executableTarget(name: "MustacheFuzz", dependencies: ["Mustache", "FuzzReplay"], path: "Tests/Fuzz/MustacheFuzz",
                          exclude: ["corpus", "mustache.dict"]),
        .executableTarget(name: "PlayIntegrityFuzz", dependencies: ["Attestation", "Crypto", "JSON", "FuzzReplay"],
                          path: "Tests/Fuzz/PlayIntegrityFuzz",
                          exclude: ["corpus", "pi.dict"]),
        .executableTarget(name: "AttestationFuzz", dependencies: ["Attestation", "Crypto", "FuzzReplay"], path: "Tests/Fuzz/AttestationFuzz",
                          exclude: ["corpus"]),
        .executableTarget(name: "KeyAttestationFuzz", dependencies: ["Attestation", "Crypto", "FuzzReplay"], path: "Tests/Fuzz/KeyAttestationFuzz",
                          exclude: ["corpus"]),
    ],
    swiftLanguageModes: [.v6]
)
