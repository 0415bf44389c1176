// swift-tools-version:6.2
import PackageDescription

/// Settings every target shares; the data-path modules add strict memory safety on top.
let commonSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .treatWarning("ExplicitSendable", as: .warning),
]
let dataPathSettings: [SwiftSetting] = commonSettings + [.strictMemorySafety()]

let package = Package(
    name: "chatcap",
    platforms: [.macOS(.v26)],
    products: [
        .executable(name: "chatcap", targets: ["chatcap"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
    ],
    targets: [
        // System libraries: the system zlib (zlib1g-dev) and OpenSSL (libssl-dev), ISA-L's igzip
        // (libisal-dev) behind a small C interface, and the Linux headers Glibc does not export (epoll).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .target(name: "CIsal", path: "Sources/CIsal", linkerSettings: [.linkedLibrary("isal")]),
        .target(name: "CLinux", path: "Sources/CLinux"),

        // bytes → lines → parsed views. Standard library only.
        .target(name: "IRCWire", swiftSettings: dataPathSettings),
        // Entry rings, windows, moderation, output encoding. No I/O.
        .target(name: "ChatStore", dependencies: ["IRCWire"], swiftSettings: dataPathSettings),
        // File descriptors: sockets, TLS, files, gzip, the ingest loop.
        .target(
            name: "ChatIO",
            dependencies: ["ChatStore", "IRCWire", "CZlib", "CIsal", "COpenSSL", "CLinux"],
            swiftSettings: dataPathSettings),
        .executableTarget(
            name: "chatcap",
            dependencies: [
                "ChatIO", "ChatStore", "IRCWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: commonSettings),

        // Test support: fixture lookup, golden files, the drip-feed framer verifier.
        .target(
            name: "ChatTestSupport", dependencies: ["IRCWire"], path: "Tests/ChatTestSupport",
            swiftSettings: commonSettings),
        .testTarget(
            name: "IRCWireTests",
            dependencies: ["IRCWire", "ChatTestSupport", .product(name: "Yams", package: "Yams")],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatStoreTests", dependencies: ["ChatStore", "IRCWire", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatIOTests", dependencies: ["ChatIO", "ChatStore", "IRCWire", "ChatTestSupport", "CZlib"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "CLITests", dependencies: ["ChatTestSupport"],
            swiftSettings: commonSettings),

        // Counts heap allocations per scenario; run in release by `make alloc`, never in parallel tests.
        .executableTarget(
            name: "AllocationChecks",
            dependencies: [
                "IRCWire", "ChatStore", "ChatIO", "ChatTestSupport",
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Tests/AllocationChecks", exclude: ["limits.json"],
            swiftSettings: commonSettings),
        // Throughput figures for `make bench`.
        .executableTarget(
            name: "ChatBench", dependencies: ["IRCWire", "ChatStore", "ChatTestSupport"],
            path: "Benchmarks/ChatBench", swiftSettings: commonSettings),
    ]
)
