// swift-tools-version: 6.1
import PackageDescription

/// The per-packet modules (the relay and SRTP) run on one event loop thread and own their state: dynamic
/// exclusivity checks there cost about 5 % of the relay's user-space time per copy (`perf`, 1000 listeners)
/// and guard nothing the single-threaded design does not already. Static checks stay on.
let hotPathSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

/// The files `pttd` serves to browsers (Sources/PTTServer/Web/Assets), each compiled in as `PackageResources.NAME`.
let webAssets = [
    "index.html", "app.css", "app.js", "app-state.js", "app-control.js", "app-channels.js", "app-talk.js",
    "app-calls.js", "app-scan.js",
    "app-audio.js", "app-view.js", "capture-worklet.js", "playback-worklet.js", "onset-detector.js",
    "console.html", "console.js", "console.css",
]

let package = Package(
    name: "pttrelay",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .library(name: "PTTKit", targets: ["PTTKit"]),
        .executable(name: "pttd", targets: ["pttd"]),
        .executable(name: "pttctl", targets: ["pttctl"]),
        .executable(name: "ptt", targets: ["ptt"]),
        .executable(name: "pttbench", targets: ["pttbench"]),
        .executable(name: "srtp-bench", targets: ["srtp-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // C libraries from Debian.
        .systemLibrary(
            name: "COpus",
            pkgConfig: "opus",
            providers: [.apt(["libopus-dev"])]
        ),

        // libsrtp2 is only the tests' oracle (LibSRTP); the product links libcrypto through CCrypto.
        .systemLibrary(
            name: "CSRTP",
            pkgConfig: "libsrtp2",
            providers: [.apt(["libsrtp2-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "COgg",
            pkgConfig: "ogg",
            providers: [.apt(["libogg-dev"])]
        ),

        // Pure modules: no I/O.
        .target(name: "RTP"),
        // The Opus packet limits and TOC reading, in Swift: shared by Opus and AudioFiles, links no C library.
        .target(name: "OpusPacketFormat"),
        .target(name: "AudioFiles", dependencies: ["COgg", "OpusPacketFormat"]),
        // What SRTP is, without crypto (profiles, keys, errors, packet index, replay window, IV layout):
        // shared by SRTP (libcrypto) and PortableSRTP (swift-crypto), which re-export it. Its per-packet
        // code is @inlinable under @_spi(SRTPInternals) (Swift 6.3 does not inline `package` functions
        // across modules) and compiles into SRTP with SRTP's hot-path settings; no unsafe flags here, as
        // the kit depends on it.
        .target(name: "SRTPFormat"),
        .target(name: "SRTP", dependencies: ["CCrypto", "SRTPFormat"], swiftSettings: hotPathSettings),
        .target(name: "CUDPBatch"),
        .target(name: "Opus", dependencies: ["COpus", "OpusPacketFormat"]),
        .target(
            name: "PTTProtocol",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The directory's tables are persistent hash maps (TreeDictionary): a copy to plan a write on shares them,
        // and a change copies only the path to what it changes, not the whole table.
        .target(
            name: "PTTCore",
            dependencies: [.product(name: "HashTreeCollections", package: "swift-collections")]
        ),

        // Runtime.
        .target(
            name: "PTTRelay",
            dependencies: [
                "PTTCore", "Opus", "RTP", "SRTP", "CUDPBatch",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: hotPathSettings
        ),
        // The APNs transport (HTTP/2 client, provider token, back-off): knows Apple's protocol, not ours.
        .target(
            name: "APNs",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "PTTServer",
            dependencies: [
                "APNs", "AudioFiles", "Opus", "PTTCore", "PTTProtocol", "PTTRelay", "PTTStore", "RTP", "SRTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The browser walkie-talkie, the operator console and the admin API's OpenAPI description: plain files,
            // compiled into pttd as byte arrays (no resource bundle to install beside the binary, no build step that
            // needs the internet).
            resources: webAssets.map { .embedInCode("Web/Assets/\($0)") } + [.embedInCode("Admin/openapi.json")]
        ),
        // The server's storage, one interface with two implementations: SQLite through GRDB (one node) and
        // PostgreSQL through postgres-nio (a cluster), here and nowhere else.
        .target(
            name: "PTTStore",
            dependencies: [
                "PTTCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // SRTP on swift-crypto, for the kit: the same packets as SRTP (libcrypto), byte for byte, on every platform.
        .target(
            name: "PortableSRTP",
            dependencies: [
                "SRTPFormat",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The client library iPhone apps and their Local Push extension build on: Swift packages that build on iOS,
        // macOS and Linux only (no system library, no C target of ours). `make lint` checks it.
        .target(
            name: "PTTKit",
            dependencies: [
                "PTTProtocol", "RTP", "PortableSRTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The admin API's client and the wording `pttctl` prints (Linux tools only, not part of the kit).
        .target(
            name: "PTTAdmin",
            dependencies: [
                "PTTProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),

        // Executables: argument parsing and wiring only.
        .executableTarget(
            name: "pttd",
            dependencies: [
                "PTTServer", "PTTProtocol", "PTTCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "pttctl",
            dependencies: [
                "PTTAdmin", "PTTKit", "PTTProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ptt",
            dependencies: [
                "PTTKit", "PTTProtocol", "AudioFiles", "Opus", "RTP", "SRTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .executableTarget(
            name: "pttbench",
            dependencies: [
                "PTTAdmin", "PTTKit", "PTTProtocol", "RTP", "AudioFiles", "Opus", "SRTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["ReferenceRelay"]
        ),
        // Per-packet cost of SRTPSession (`make`-free: see Docs/SRTP.md).
        .executableTarget(name: "srtp-bench", dependencies: ["SRTP", "PortableSRTP"], path: "Sources/SRTPBench"),
        // The benchmark gate (`make bench-check`, Docs/BENCHMARKS.md): allocations per relayed packet, join and floor
        // request against fixtures/bench-thresholds.json. It counts them with a malloc of its own (CAllocationCounter),
        // which nothing else links.
        .executableTarget(
            name: "pttbench-gate",
            dependencies: [
                "CAllocationCounter", "PTTServer", "PTTRelay", "PTTStore", "PTTProtocol", "PTTCore", "RTP", "SRTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .target(name: "CAllocationCounter"),

        // libFuzzer targets (`make fuzz`); in a normal build they are executables that do nothing.
        .executableTarget(
            name: "fuzz-control-frame",
            dependencies: [
                "PTTProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ], path: "Sources/Fuzz/ControlFrame"),
        .executableTarget(name: "fuzz-rtp", dependencies: ["RTP"], path: "Sources/Fuzz/RTP"),
        .executableTarget(name: "fuzz-srtp", dependencies: ["SRTP"], path: "Sources/Fuzz/SRTP"),
        .executableTarget(
            name: "fuzz-opus-packet", dependencies: ["Opus", "OpusPacketFormat"], path: "Sources/Fuzz/OpusPacket"),
        .executableTarget(
            name: "fuzz-ogg-opus", dependencies: ["AudioFiles", "OpusPacketFormat"], path: "Sources/Fuzz/OggOpus"),
        .executableTarget(name: "fuzz-wav", dependencies: ["AudioFiles"], path: "Sources/Fuzz/WAV"),
        .executableTarget(name: "fuzz-config", dependencies: ["PTTServer"], path: "Sources/Fuzz/Config"),
        .executableTarget(
            name: "fuzz-admin-http",
            dependencies: [
                "PTTServer", "PTTCore", "PTTStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Sources/Fuzz/AdminHTTP"),

        // Helpers every test target may share (waits, timeouts, test clocks, recorders); no `@testable` imports.
        .target(name: "TestSupport", dependencies: ["PTTCore"], path: "Tests/TestSupport"),
        // A real PostgreSQL from Debian, started for a test or a suite: for the storage suite and the cluster tests.
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "PTTStore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/PostgresTestSupport"
        ),
        // A real pttd on loopback for a test (`withTestServer`), and a connected client that records what it hears
        // (`Peer`): for the server's tests and any other target that tests against a running server.
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "PTTServer", "PTTAdmin", "PTTKit", "PTTProtocol", "PTTCore", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/ServerTestSupport"
        ),
        // A local HTTP/2 stand-in for APNs, for the APNs unit tests and the server's wake tests.
        .target(
            name: "APNsTestSupport",
            dependencies: [
                "APNs", "PTTProtocol", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tests/APNsTestSupport"
        ),
        // libsrtp2 wrapped as a test oracle for SRTPSession; never linked into a product.
        .target(name: "LibSRTP", dependencies: ["CSRTP", "SRTP", "SRTPFormat"], path: "Tests/LibSRTP"),
        .testTarget(name: "PTTCoreTests", dependencies: ["PTTCore", "TestSupport"]),
        .testTarget(
            name: "PTTProtocolTests",
            dependencies: [
                "PTTProtocol", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "OpusTests", dependencies: ["Opus", "TestSupport"]),
        .testTarget(
            name: "PTTKitTests",
            dependencies: [
                "PTTKit", "PTTProtocol", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "PTTAdminTests", dependencies: ["PTTAdmin", "PTTProtocol"]),
        .testTarget(
            name: "PTTRelayTests",
            dependencies: [
                "PTTRelay", "PTTCore", "RTP", "SRTP", "CUDPBatch", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(name: "MediaTests", dependencies: ["RTP", "AudioFiles", "Opus", "TestSupport"]),
        .testTarget(
            name: "SRTPTests",
            dependencies: [
                "SRTP", "SRTPFormat", "PortableSRTP", "LibSRTP", "RTP", "Opus", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "APNsTests",
            dependencies: [
                "APNs", "APNsTestSupport", "PTTProtocol", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The storage suite: the same tests on SQLite and PostgreSQL, the storage thread, PostgreSQL's conflicts.
        .testTarget(
            name: "PTTStoreTests",
            dependencies: [
                "PTTStore", "PTTCore", "TestSupport", "PostgresTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "PTTServerTests",
            dependencies: [
                "PTTServer", "PTTRelay", "PTTStore", "PTTAdmin", "PTTKit", "PTTProtocol", "PTTCore", "RTP",
                "AudioFiles", "SRTP",
                "Opus", "TestSupport", "PostgresTestSupport", "ServerTestSupport",
                "APNs", "APNsTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
