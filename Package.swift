// swift-tools-version: 6.1
// GiftKeeper: a private gift-list keeper whose every action is an encrypted
// event in an append-only journal. Dependencies point one way:
// giftkeeper → GiftKeeperREPL → GiftKeeperService → (GiftKeeperSealing, GiftKeeperDocuments)
// → (GiftKeeperDomain, GiftKeeperJournal → GiftKeeperCrypto) → CSodium / CReadline
// (docs/architecture.md draws it). The journal's storage is the FrameStore protocol
// (GiftKeeperJournal): the file, the sync service (GiftKeeperRemote), memory in tests.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "GiftKeeper",
    products: [
        .executable(name: "giftkeeper", targets: ["giftkeeper"]),
        .executable(name: "giftkeeper-server", targets: ["giftkeeper-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // giftkeeper-server's database (SPEC §12), and the NIO and logging it is driven with.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // The sync service (SPEC §12): giftkeeper-server on Hummingbird 2 with TLS and bearer
        // authentication; devices reach it over HTTPS with AsyncHTTPClient.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Tests only: reads `list --csv` back as a spreadsheet program would.
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        // Tests only: runs the built binary and other programs from tests (TestProcesses).
        .package(url: "https://github.com/swiftlang/swift-subprocess", exact: "1.0.2"),
    ],
    targets: [
        // C libraries from Debian, bound as system-library targets.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "CReadline",
            pkgConfig: "readline",
            providers: [.apt(["libreadline-dev"])]
        ),

        // The only Swift that touches libsodium.
        .target(
            name: "GiftKeeperCrypto",
            dependencies: ["CSodium"],
            swiftSettings: strictSettings
        ),
        // The one file layer: system calls on files, private files (0600 in 0700
        // directories, O_EXCL|O_NOFOLLOW), atomic replacement, errno as data.
        .target(
            name: "GiftKeeperFiles",
            swiftSettings: strictSettings
        ),
        // Append-only frames: the FrameStore protocol, the file and memory stores; knows nothing of gifts.
        .target(
            name: "GiftKeeperJournal",
            dependencies: ["GiftKeeperCrypto", "GiftKeeperFiles"],
            swiftSettings: strictSettings
        ),
        // The sync service's wire format (SPEC §12): the requests and answers a device and
        // giftkeeper-server exchange, as JSON; shared by both so they cannot drift apart.
        .target(
            name: "GiftKeeperWire",
            swiftSettings: strictSettings
        ),
        // The sync service seen from a device: a RemoteLocation and SharedFrameStore over
        // HTTPS (AsyncHTTPClient), every request under a deadline, signed in with the
        // device's own Ed25519 key.
        .target(
            name: "GiftKeeperRemote",
            dependencies: [
                "GiftKeeperWire", "GiftKeeperJournal", "GiftKeeperCrypto", "GiftKeeperFiles",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // Pure event-sourced gift-list model: no I/O, no C, no clock.
        .target(
            name: "GiftKeeperDomain",
            dependencies: [
                .product(name: "OrderedCollections", package: "swift-collections")
            ],
            swiftSettings: strictSettings
        ),
        // The sealed frame format: events sealed into frames bound to their position, key
        // wraps and keyrings, the authenticated head a device remembers or posts.
        .target(
            name: "GiftKeeperSealing",
            dependencies: ["GiftKeeperDomain", "GiftKeeperJournal", "GiftKeeperCrypto"],
            swiftSettings: strictSettings
        ),
        // The JSON documents: the export document and its one writer, the import reader.
        .target(
            name: "GiftKeeperDocuments",
            dependencies: [
                "GiftKeeperDomain",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        // Application service: sessions, commands (load → fold → decide → append → notify),
        // audit, and sync (a pure planner and its executor).
        .target(
            name: "GiftKeeperService",
            dependencies: [
                "GiftKeeperDomain", "GiftKeeperJournal", "GiftKeeperCrypto", "GiftKeeperFiles", "GiftKeeperSealing",
                "GiftKeeperDocuments",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        // The readline shell: line editing, command parsing, rendering, and every sentence
        // addressed to a person. Besides the service and the domain it imports
        // GiftKeeperCrypto for one type (passwords are read straight into SecureBytes,
        // guarded memory, never a String), and GiftKeeperJournal and GiftKeeperFiles only to
        // word their errors (JournalError, errno), which the service passes on as data.
        .target(
            name: "GiftKeeperREPL",
            dependencies: [
                "GiftKeeperService", "GiftKeeperDomain", "GiftKeeperCrypto", "GiftKeeperJournal", "GiftKeeperFiles",
                "GiftKeeperSealing", "GiftKeeperDocuments", "CReadline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        // The executable: argument parsing and wiring only. GiftKeeperCrypto for SecureBytes:
        // the password it reads, and the key wipe it registers for fatal signals;
        // GiftKeeperDomain for the types the service's answers are made of (a time, a state).
        .executableTarget(
            name: "giftkeeper",
            dependencies: [
                "GiftKeeperREPL", "GiftKeeperService", "GiftKeeperCrypto", "GiftKeeperDomain", "GiftKeeperJournal",
                "GiftKeeperRemote", "GiftKeeperWire", "GiftKeeperSealing", "GiftKeeperFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        // `make bench-sync`'s simulated devices (scripts/bench-sync.sh): the sync service's
        // protocol (GiftKeeperWire) spoken asynchronously, so one process holds a thousand
        // devices, each with its own Ed25519 key and WebSocket. In no product.
        .executableTarget(
            name: "giftkeeper-bench-sync",
            dependencies: [
                "GiftKeeperWire", "GiftKeeperCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/BenchSync",
            swiftSettings: strictSettings
        ),
        // `make bench-household`'s helper (scripts/bench-household.sh): a member's share of a
        // 20,000-event household appended in batches through the household's own code, and a
        // member's key derivation timed alone, the bound of the sign-ins. In no product.
        .executableTarget(
            name: "giftkeeper-bench-household",
            dependencies: [
                "GiftKeeperService", "GiftKeeperRemote", "GiftKeeperSealing", "GiftKeeperDomain", "GiftKeeperCrypto",
                "GiftKeeperJournal", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/BenchHousehold",
            swiftSettings: strictSettings
        ),
        // The sync service (SPEC §12): the only program that talks to PostgreSQL. `migrate`
        // sets up the schema as its owner; `serve` answers devices over HTTPS as a role that
        // owns nothing and is held by row-level security to one account per transaction.
        .executableTarget(
            name: "giftkeeper-server",
            dependencies: [
                "GiftKeeperWire", "GiftKeeperCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),

        // Test support, in no product: temporary directories, file bytes, the one seeded
        // random generator (TestRandom) and the sync-service fixture every test target shares.
        .target(
            name: "GiftKeeperTestSupport",
            path: "Tests/Support/GiftKeeperTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GiftKeeperCryptoTests",
            dependencies: ["GiftKeeperCrypto", "GiftKeeperTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GiftKeeperFilesTests",
            dependencies: ["GiftKeeperFiles", "GiftKeeperTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GiftKeeperJournalTests",
            dependencies: [
                "GiftKeeperJournal", "GiftKeeperCrypto", "GiftKeeperRemote", "GiftKeeperWire", "GiftKeeperSealing",
                "journal-append-probe", "TestProcesses", "GiftKeeperTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // Test support: appends frames in a loop, printing each acknowledged sequence
        // number after fsync, so a fault test can SIGKILL it mid-append.
        .executableTarget(
            name: "journal-append-probe",
            dependencies: ["GiftKeeperJournal"],
            path: "Tests/Support/JournalAppendProbe",
            swiftSettings: strictSettings
        ),
        // Test support, in no product: runs a program from a test (swift-subprocess) with
        // a deadline, its output collected or read as it comes. Used by every test target
        // that starts a process.
        .target(
            name: "TestProcesses",
            dependencies: [.product(name: "Subprocess", package: "swift-subprocess")],
            path: "Tests/Support/TestProcesses",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GiftKeeperDomainTests",
            dependencies: [
                "GiftKeeperDomain", "GiftKeeperTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GiftKeeperServiceTests",
            dependencies: [
                "GiftKeeperService", "GiftKeeperDomain", "GiftKeeperJournal", "GiftKeeperCrypto", "GiftKeeperSealing",
                "GiftKeeperDocuments", "GiftKeeperTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            // Golden/: the export documents the tests compare with, read from the source tree.
            exclude: ["Golden"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GiftKeeperREPLTests",
            dependencies: [
                "GiftKeeperREPL", "GiftKeeperService", "GiftKeeperCrypto", "GiftKeeperDomain", "GiftKeeperJournal", "TestProcesses",
                "GiftKeeperSealing", "GiftKeeperDocuments", "GiftKeeperTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // The fuzz harnesses' checks (Fuzz/Checks) run over their committed corpus
        // (Fuzz/Corpus): every input a fuzzer found stays a test. `make fuzz` runs the
        // same checks under libFuzzer (scripts/fuzz.sh; Fuzz/Entry is its entry point).
        .testTarget(
            name: "GiftKeeperFuzzTests",
            dependencies: [
                "GiftKeeperREPL", "GiftKeeperService", "GiftKeeperJournal", "GiftKeeperDomain", "GiftKeeperCrypto",
                "GiftKeeperSealing", "GiftKeeperDocuments", "GiftKeeperWire", "GiftKeeperTestSupport",
            ],
            path: "Fuzz",
            exclude: ["Entry", "Corpus"],
            sources: ["Checks", "Tests"],
            swiftSettings: strictSettings
        ),
        // End-to-end: runs the built giftkeeper binary in script mode and under tmux, and
        // devices through the built giftkeeper-server.
        .testTarget(
            name: "GiftKeeperEndToEndTests",
            dependencies: [
                "giftkeeper", "giftkeeper-server", "TestProcesses", "GiftKeeperTestSupport",
                .product(name: "SwiftCSV", package: "SwiftCSV"),
                // Only to speak the service's wire protocol as a load balancer spreads it (ServiceNodesTests).
                "GiftKeeperWire", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Only to write what another device holding the key could (HostileDevice).
                "GiftKeeperSealing", "GiftKeeperJournal", "GiftKeeperDomain", "GiftKeeperCrypto",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
