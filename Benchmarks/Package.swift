// swift-tools-version: 6.1
// GiftKeeper's benchmarks (package-benchmark), kept out of the main package so that
// `swift build` and `make test` stay lean. Run with `make bench` from the repository root.
import PackageDescription

let package = Package(
    name: "GiftKeeperBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "GiftKeeper", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Peak memory against the decrypted state (docs/performance.md, "Memory").
        .executableTarget(
            name: "memcheck",
            dependencies: [.product(name: "GiftKeeperCore", package: "GiftKeeper")],
            path: "Tools/memcheck"
        ),
        .executableTarget(
            name: "GiftKeeperBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GiftKeeperCore", package: "GiftKeeper"),
            ],
            path: "Benchmarks/GiftKeeperBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ]
)
