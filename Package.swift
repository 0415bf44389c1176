// swift-tools-version:6.2
import PackageDescription

/// Settings every target shares; the data-path modules add strict memory safety on top.
let commonSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .treatWarning("ExplicitSendable", as: .warning),
    // Release builds skip the dynamic exclusivity checks on class properties and globals
    // (swift_beginAccess and its thread-local access set): 8-10% of capture's and stats' CPU, on every
    // line. Debug builds, which `make test` and TSan run, keep them, so an overlapping access still
    // traps in the suite. The static checks are unchanged.
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
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
        // (libisal-dev) and libcurl (libcurl4-openssl-dev's header; the library is opened at run time,
        // for ClickHouse's HTTP interface and recent-messages services) behind small C interfaces, and the Linux headers Glibc does
        // not export (epoll).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // libcurl is opened at run time (CCurl.c), by `load` and by `--recent-messages`: no command links it.
        .target(name: "CCurl", path: "Sources/CCurl"),
        // libmicrohttpd (libmicrohttpd-dev): the one HTTP listener, behind a few inline helpers.
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CIsal", path: "Sources/CIsal", linkerSettings: [.linkedLibrary("isal")]),
        .target(name: "CLinux", path: "Sources/CLinux"),
        // CPU hints the standard library does not spell (a prefetch), in one header.
        .systemLibrary(name: "CHint", path: "Sources/CHint"),

        // The pure core: no I/O, no clocks, no C. Data flows left to right:
        //   IRCWire ─▶ ChatStore ─▶ ChatFormat        ChatStore ─▶ TwitchSession (events in, actions out)
        // bytes → lines → parsed views. Standard library only, and the compiler's vector builtins: its
        // byte scans gather vector compares into bit masks (`ByteMask`), as the standard library's own
        // SIMD types are written, which have no movemask.
        .target(
            name: "IRCWire", swiftSettings: dataPathSettings + [.enableExperimentalFeature("BuiltinModule")]),
        // WebSocket (RFC 6455) frames decoded in place and encoded, and the Upgrade handshake as text.
        .target(name: "WebSocketWire", swiftSettings: dataPathSettings),
        // Where the store's memory comes from and how much it may take: the system's page mapping and
        // resident-memory reading (injected by ChatPosix), the page regions a store's small rings grow
        // their bytes in, and the memory budget.
        .target(name: "ChatMemory", swiftSettings: dataPathSettings),
        // Hash indexes over bytes: a store's channels by name (one cache line a lookup), 64-bit keys to
        // values, names to numbers (capture's lanes, stats' keys), and the byte hashes behind them.
        .target(name: "ChatIndex", swiftSettings: dataPathSettings),
        // Entry rings, windows, moderation, interning, timestamps.
        .target(
            name: "ChatStore", dependencies: ["IRCWire", "ChatMemory", "ChatIndex"], swiftSettings: dataPathSettings),
        // The Twitch connection state machine, credentials, logins, join pacing, session records
        // (whose descriptions write instants with ChatStore's `Timestamp`).
        .target(name: "TwitchSession", dependencies: ["IRCWire", "ChatStore"], swiftSettings: dataPathSettings),
        // Output encoders over one line and its context: typed JSON, irc atoms, text, session records.
        .target(
            name: "ChatFormat", dependencies: ["IRCWire", "ChatStore", "TwitchSession"],
            swiftSettings: dataPathSettings),

        // The operating system: everything below touches file descriptors, threads or clocks.
        // errno text, full writes, threads, the stop flag, the clocks behind `Moment.now()`, the CPUs
        // available (CLinux: sched_getaffinity).
        .target(
            name: "ChatPosix", dependencies: ["ChatMemory", "ChatStore", "TwitchSession", "CLinux"],
            swiftSettings: dataPathSettings),
        // epoll, TCP, TLS (the system OpenSSL), socket addresses, write queues.
        .target(
            name: "ChatNet",
            dependencies: ["ChatPosix", "TwitchSession", "IRCWire", "WebSocketWire", "COpenSSL", "CLinux"],
            swiftSettings: dataPathSettings),
        // gzip out through ISA-L and zlib: the writer, its flush points and crash repair, the write spool,
        // one-shot compression.
        .target(
            name: "ChatGzip", dependencies: ["ChatPosix", "TwitchSession", "CZlib", "CIsal"],
            swiftSettings: dataPathSettings),
        // The inputs of every reader: input paths and directory rules, per-file sources (plain, gzip
        // through ISA-L, prefetched, followed), the time merge.
        .target(
            name: "ChatInput", dependencies: ["ChatPosix", "ChatStore", "IRCWire", "CIsal"],
            swiftSettings: dataPathSettings),
        // The capture writer: files per channel, rotation, records, back-pressure; over ChatGzip's writer
        // and spool, and ChatInput's merge to read a previous run.
        .target(
            name: "ChatArchive",
            dependencies: [
                "ChatIndex", "ChatGzip", "ChatInput", "ChatPosix", "IRCWire", "ChatStore", "ChatFormat",
                "TwitchSession",
            ],
            swiftSettings: dataPathSettings),
        // The output pipeline of replay, dump and tail (live lines through `OutputPipeline+Live`): filters, store,
        // encoders, the stdout sink; stats' counters.
        .target(
            name: "ChatOutput",
            dependencies: [
                "CHint", "ChatIndex", "ChatMemory", "ChatInput", "ChatFormat", "ChatPosix", "ChatStore", "IRCWire",
                "TwitchSession",
            ],
            swiftSettings: dataPathSettings),
        // The one HTTP client (libcurl's easy interface): `load`'s POSTs, the backfill's GETs.
        .target(name: "ChatCurl", dependencies: ["CCurl", "ChatPosix"], swiftSettings: dataPathSettings),
        // The live ingest loop: one epoll thread joining the network, the session machine and the caller;
        // the backfill of gaps from a recent-messages service, fetched on a worker thread.
        .target(
            name: "ChatLive",
            dependencies: ["ChatNet", "ChatPosix", "ChatCurl", "ChatStore", "ChatFormat", "TwitchSession", "IRCWire"],
            swiftSettings: dataPathSettings),
        // The stand-in Twitch server.
        .target(
            name: "ChatServe",
            dependencies: [
                "ChatNet", "ChatIndex", "ChatInput", "ChatPosix", "ChatStore", "ChatFormat", "ChatHTTP",
                "TwitchSession", "IRCWire", "WebSocketWire",
            ],
            swiftSettings: dataPathSettings),
        // The one HTTP listener (libmicrohttpd, its own thread): routes, the recent-messages endpoint
        // over a store's rings and the rings it answers from (serve's, capture's and tail's), the
        // ingest counters of capture and tail and their Prometheus text exposition.
        .target(
            name: "ChatHTTP",
            dependencies: [
                "ChatMemory", "ChatFormat", "ChatStore", "ChatPosix", "TwitchSession", "IRCWire", "CMicroHTTPD",
            ],
            swiftSettings: dataPathSettings),
        // The terminal view (`watch`), over recordings and live chat.
        .target(
            name: "ChatWatch",
            dependencies: [
                "ChatLive", "ChatOutput", "ChatInput", "ChatFormat", "ChatPosix", "ChatMemory", "ChatStore",
                "TwitchSession",
                "IRCWire",
            ],
            swiftSettings: dataPathSettings),
        // `load`: capture directories into ClickHouse over HTTP (libcurl), with acknowledged progress.
        .target(
            name: "ChatLoad",
            dependencies: [
                "ChatGzip", "ChatInput", "ChatFormat", "ChatPosix", "ChatStore", "IRCWire", "TwitchSession", "ChatCurl",
                "CZlib",
            ],
            swiftSettings: dataPathSettings),
        // The logs API's stores: a capture directory seen as an archive (read through ChatInput's merge,
        // its month index written with ChatGzip's writers) and the ClickHouse table load fills (asked with
        // ChatCurl's client), both behind one protocol, LogStore, that hands out stored lines.
        .target(
            name: "ChatLogStore",
            dependencies: ["ChatInput", "ChatGzip", "ChatPosix", "ChatStore", "IRCWire", "ChatCurl"],
            swiftSettings: dataPathSettings),
        // `logs`: the rustlog/justlog logs API over a ChatLogStore store, encoded with ChatFormat's writers,
        // gzip-encoded with ChatGzip's, answered on ChatHTTP's listener.
        .target(
            name: "ChatLogs",
            dependencies: [
                "ChatLogStore", "ChatInput", "ChatGzip", "ChatFormat", "ChatHTTP", "ChatPosix", "ChatStore", "IRCWire",
            ],
            swiftSettings: dataPathSettings),
        // The live run of capture and tail over ChatLive's session: the HTTP service beside it (and its
        // health), the channel list reloaded on SIGHUP, the interrupts, the run's orchestration and its
        // end-of-run report.
        .target(
            name: "ChatRun",
            dependencies: [
                "ChatLive", "ChatHTTP", "ChatLogs", "ChatLogStore", "ChatArchive", "ChatOutput", "ChatPosix",
                "ChatMemory", "ChatStore",
                "TwitchSession", "IRCWire",
            ],
            swiftSettings: dataPathSettings),
        // The executable: argument parsing and wiring.
        .executableTarget(
            name: "chatcap",
            dependencies: [
                "ChatRun", "ChatWatch", "ChatServe", "ChatHTTP", "ChatLive", "ChatOutput", "ChatLoad", "ChatLogs",
                "ChatLogStore",
                "ChatArchive", "ChatInput",
                "ChatNet",
                "ChatPosix", "ChatFormat", "TwitchSession", "ChatMemory", "ChatStore", "IRCWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: commonSettings),

        // Test support: fixture lookup, golden files, the drip-feed framer verifier, temporary inputs, a TLS test bed.
        .target(
            name: "ChatTestSupport",
            dependencies: ["IRCWire", "TwitchSession", "ChatPosix", "ChatNet", "ChatInput", "ChatGzip"],
            path: "Tests/ChatTestSupport",
            swiftSettings: commonSettings),
        .testTarget(
            name: "IRCWireTests",
            dependencies: ["IRCWire", "ChatTestSupport", .product(name: "Yams", package: "Yams")],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatMemoryTests", dependencies: ["ChatMemory", "ChatPosix"], swiftSettings: commonSettings),
        .testTarget(name: "ChatIndexTests", dependencies: ["ChatIndex", "IRCWire"], swiftSettings: commonSettings),
        .testTarget(
            name: "ChatStoreTests",
            dependencies: ["ChatStore", "ChatIndex", "ChatMemory", "ChatPosix", "IRCWire", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "TwitchSessionTests", dependencies: ["TwitchSession", "ChatStore", "IRCWire", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatNetTests",
            dependencies: ["ChatNet", "ChatPosix", "TwitchSession", "IRCWire", "WebSocketWire", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatPosixTests", dependencies: ["ChatPosix", "ChatMemory", "ChatTestSupport", "TwitchSession"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatGzipTests", dependencies: ["ChatGzip", "ChatInput", "ChatPosix", "ChatTestSupport", "CZlib"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatInputTests",
            dependencies: ["ChatInput", "ChatGzip", "ChatPosix", "ChatStore", "IRCWire", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatArchiveTests",
            dependencies: [
                "ChatArchive", "ChatGzip", "ChatPosix", "TwitchSession", "ChatStore", "IRCWire", "ChatTestSupport",
            ],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatFormatTests", dependencies: ["ChatFormat", "ChatStore", "IRCWire", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatOutputTests",
            dependencies: [
                "ChatOutput", "ChatPosix", "ChatTestSupport", "ChatInput", "ChatFormat", "ChatMemory", "ChatStore",
                "IRCWire",
                "TwitchSession",
            ],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatLiveTests",
            dependencies: ["ChatLive", "ChatPosix", "ChatStore", "TwitchSession", "IRCWire", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatServeTests",
            dependencies: [
                "ChatServe", "ChatNet", "ChatInput", "ChatPosix", "TwitchSession", "IRCWire", "ChatTestSupport",
            ],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatWatchTests",
            dependencies: [
                "ChatWatch", "ChatInput", "ChatFormat", "ChatPosix", "ChatStore", "IRCWire", "ChatTestSupport",
            ],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatLoadTests",
            dependencies: [
                "ChatLoad", "ChatGzip", "ChatFormat", "ChatInput", "ChatPosix", "ChatStore", "IRCWire", "TwitchSession",
                "ChatTestSupport",
            ],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatHTTPTests",
            dependencies: ["ChatHTTP", "ChatFormat", "ChatStore", "IRCWire", "TwitchSession", "ChatTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatRunTests",
            dependencies: [
                "ChatRun", "ChatHTTP", "ChatLive", "ChatArchive", "ChatOutput", "ChatServe", "ChatPosix", "ChatMemory",
                "ChatStore",
                "ChatLogs", "TwitchSession", "ChatTestSupport",
            ],
            swiftSettings: commonSettings),
        .testTarget(
            name: "ChatLogsTests",
            dependencies: [
                "ChatLogs", "ChatLogStore", "ChatHTTP", "ChatGzip", "ChatInput", "ChatStore", "IRCWire",
                "ChatTestSupport",
            ],
            swiftSettings: commonSettings),
        .testTarget(
            name: "CLITests", dependencies: ["ChatTestSupport", "ChatStore"],
            swiftSettings: commonSettings),

        // Counts heap allocations per scenario; run in release by `make alloc`, never in parallel tests.
        .executableTarget(
            name: "AllocationChecks",
            dependencies: [
                "IRCWire", "ChatMemory", "ChatStore", "TwitchSession", "ChatFormat", "ChatPosix", "ChatNet", "ChatGzip",
                "ChatInput",
                "ChatArchive", "ChatOutput", "ChatServe", "ChatHTTP", "ChatLogs", "ChatLogStore", "WebSocketWire",
                "ChatTestSupport",
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Tests/AllocationChecks", exclude: ["limits.json"],
            swiftSettings: commonSettings),
        // The cross-thread stress scenarios of ChatStore and ChatInput, built with ThreadSanitizer and run by
        // `make tsan` (part of `make test`). An executable, so that the TSan build compiles only these modules,
        // not the package and every test target as `swift test --sanitize=thread` would.
        .executableTarget(
            name: "StressChecks",
            dependencies: [
                "ChatMemory", "ChatStore", "ChatInput", "ChatGzip", "ChatPosix", "IRCWire", "ChatTestSupport",
            ],
            path: "Tests/StressChecks", swiftSettings: commonSettings),
        // Throughput figures for `make bench`.
        .executableTarget(
            name: "ChatBench", dependencies: ["IRCWire", "ChatStore", "ChatFormat", "ChatPosix", "ChatTestSupport"],
            path: "Benchmarks/ChatBench", swiftSettings: commonSettings),
    ]
)
